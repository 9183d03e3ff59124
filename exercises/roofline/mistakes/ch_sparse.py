# kind: wrong
# about: uses the datasheet's sparse FP8 figure as the dense peak
# expect crossover_h100: wrong /used as is/

crossover_h100 = {sparse_tflops}e12 / {tb_per_s}e12 * 1 / 2
