# kind: wrong
# about: answers with a word instead of a letter
# expect answer_one_token: wrong /not one of A, B, C or D|just the letter/

answer_one_token = "No"
