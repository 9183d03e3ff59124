# kind: wrong
# about: gives the answer in seconds
# expect spike_ms: wrong /in seconds/

spike_ms = max(2 * {params_b}e9 * ({batch} + {prompt_len}) / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12)
