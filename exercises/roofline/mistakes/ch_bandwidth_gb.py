# kind: wrong
# about: the bandwidth typed in GB/s where the datasheet's is in TB/s (blind TA's cross_bw_tb)
# expect crossover_h100: wrong /GB/s/

crossover_h100 = {sparse_tflops}e12 / 2 / {tb_per_s}e9 / 2
