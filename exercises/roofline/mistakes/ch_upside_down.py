# kind: wrong
# about: solves for the batch the wrong way round
# expect crossover_h100: wrong /upside down/

ridge = {sparse_tflops}e12 / 2 / {tb_per_s}e12
crossover_h100 = ridge * 2 / 1
