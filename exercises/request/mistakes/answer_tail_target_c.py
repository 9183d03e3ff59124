# kind: wrong
# about: chooses C
# expect answer_tail_target: wrong /not the right option/

answer_tail_target = "C"
