# kind: wrong
# about: answers with a word
# expect answer_tail_target: wrong /not one of A, B, C or D/

answer_tail_target = "No"
