# kind: correct
# about: the letters in lower case with spaces

answer_bigger_batch = " c "
answer_small_chunks = "a"
answer_fp8_crossover = "b "
