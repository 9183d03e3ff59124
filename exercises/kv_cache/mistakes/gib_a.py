# kind: wrong
# about: thinks the values are not stored separately
# expect answer_gib: wrong /factor 2 is right|key and a value/

answer_gib = "A"
