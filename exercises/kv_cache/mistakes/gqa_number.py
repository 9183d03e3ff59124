# kind: wrong
# about: answers with the ratio instead of a letter
# expect answer_gqa: wrong /letter/

answer_gqa = 8
