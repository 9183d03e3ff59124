# kind: wrong
# about: thinks Little's law is about the median
# expect answer_little: wrong /any stable system/

answer_little = "D"
