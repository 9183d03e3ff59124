# kind: wrong
# about: gives the chunk's pass in seconds
# expect chunk_ms: wrong /in seconds/

chunk_ms = max(2 * {params_b}e9 * ({batch} + {chunk}) / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12)
