# kind: wrong
# about: thinks attention doubles the FLOPs
# expect answer_factor_two: wrong /3\.7%|few percent/

answer_factor_two = "C"
