# kind: wrong
# about: compares a rate with a count
# expect answer_little: wrong /different units/

answer_little = "A"
