# kind: wrong
# about: halves the already-dense figure once more
# expect crossover_h100: wrong /halved twice/

crossover_h100 = ({sparse_tflops}e12 / 2 / 2) / {tb_per_s}e12 / 2
