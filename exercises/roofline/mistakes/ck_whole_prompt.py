# kind: wrong
# about: gives the unchunked gap again
# expect chunk_ms: wrong /whole prompt in the pass/

chunk_ms = max(2 * {params_b}e9 * ({batch} + {prompt_len}) / ({sparse_tflops}e12 / 2), {params_b}e9 / {tb_per_s}e12) * 1000
