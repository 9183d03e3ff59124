# kind: wrong
# about: adds the compute and memory times
# expect spike_ms: wrong /two times added/

spike_ms = (2 * {params_b}e9 * ({batch} + {prompt_len}) / ({sparse_tflops}e12 / 2) + {params_b}e9 / {tb_per_s}e12) * 1000
