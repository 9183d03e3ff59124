# kind: wrong
# about: chooses A
# expect answer_tail_target: wrong /not the right option/

answer_tail_target = "A"
