# kind: correct
# about: choice letters in lower case with spaces

answer_one_token = " b"
answer_factor_two = "a "
answer_longer_prompt = "d"
