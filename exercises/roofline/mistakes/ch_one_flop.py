# kind: wrong
# about: takes decode's intensity as B / b FLOPs per byte (1 FLOP per parameter)
# expect crossover_h100: wrong /1 FLOP per parameter/

ridge = {sparse_tflops}e12 / 2 / {tb_per_s}e12
crossover_h100 = ridge * 1
