# kind: wrong
# about: thinks FP8 speeds up only the arithmetic, not the weight read
# expect answer_fp8_crossover: wrong /half of the 140 GB|1 byte each/

answer_fp8_crossover = "C"
