# kind: wrong
# about: a letter that is not an option
# expect answer_factor_two: wrong /not one of A, B, C or D/

answer_factor_two = "E"
