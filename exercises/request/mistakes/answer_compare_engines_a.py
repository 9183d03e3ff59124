# kind: wrong
# about: chooses A
# expect answer_compare_engines: wrong /not the right option/

answer_compare_engines = "A"
