# kind: wrong
# about: the prefill pass, then a separate decode step
# expect spike_ms: wrong /two passes/

prefill = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2)
decode = {params_b}e9 / {tb_per_s}e12  # memory-bound
spike_ms = (prefill + decode) * 1000
