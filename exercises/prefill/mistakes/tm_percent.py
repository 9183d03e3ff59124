# kind: wrong
# about: writes the 40% utilisation as 40 in the TTFT
# expect ttft_ms: wrong /percentage/

dense = {sparse_tflops}e12 / 2
ttft_ms = 2 * {params_b}e9 * {prompt_len} / (dense * 40) * 1000  # 40% utilisation
