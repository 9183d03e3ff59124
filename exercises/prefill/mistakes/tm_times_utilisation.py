# kind: wrong
# about: multiplies by the utilisation instead of dividing
# expect ttft_ms: wrong /multiplying by the utilisation|takes longer/

ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2) * 0.4 * 1000
