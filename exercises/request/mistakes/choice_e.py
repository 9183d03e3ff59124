# kind: wrong
# about: answers with a letter that is not an option
# expect answer_compare_engines: wrong /not one of A, B, C or D/

answer_compare_engines = "E"
