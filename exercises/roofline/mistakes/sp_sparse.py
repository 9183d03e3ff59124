# kind: wrong
# about: uses the sparse headline as the peak
# expect spike_ms: wrong /used as is/

spike_ms = 2 * {params_b}e9 * ({batch} + {prompt_len}) / {sparse_tflops}e12 * 1000
