# kind: wrong
# about: blames GB against GiB for a factor of 2
# expect answer_factor_two: wrong /1\.074|about 7%/

answer_factor_two = "B"
