# kind: wrong
# about: compares FP8 decode's intensity with the BF16 ridge point
# expect answer_fp8_crossover: wrong /ridge point moves too|doubles to 412/

answer_fp8_crossover = "A"
