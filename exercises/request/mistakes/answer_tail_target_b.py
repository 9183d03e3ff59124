# kind: wrong
# about: chooses B
# expect answer_tail_target: wrong /not the right option/

answer_tail_target = "B"
