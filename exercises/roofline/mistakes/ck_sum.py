# kind: wrong
# about: adds the two times of the chunk's pass
# expect chunk_ms: wrong /two times added/

chunk_ms = (2 * {params_b}e9 * ({batch} + {chunk}) / ({sparse_tflops}e12 / 2) + {params_b}e9 / {tb_per_s}e12) * 1000
