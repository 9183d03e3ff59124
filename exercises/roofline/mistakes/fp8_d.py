# kind: wrong
# about: thinks the dense FP8 peak is below the dense BF16 peak
# expect answer_fp8_crossover: wrong /twice its dense BF16 peak|halves both/

answer_fp8_crossover = "D"
