# kind: wrong
# about: chooses D
# expect answer_compare_engines: wrong /not the right option/

answer_compare_engines = "D"
