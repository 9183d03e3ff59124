# kind: wrong
# about: chooses C
# expect answer_compare_engines: wrong /not the right option/

answer_compare_engines = "C"
