# kind: correct
# about: lower-case letters with spaces

answer_compare_engines = " b "
answer_tail_target = "d"
answer_longer_reply = "a "
