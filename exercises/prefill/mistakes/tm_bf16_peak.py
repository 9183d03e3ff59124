# kind: wrong
# about: uses the BF16 dense rate (a quarter of the FP8 headline) for an FP8 model
# expect ttft_ms: wrong /BF16|halved twice/

ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 4 * 0.4) * 1000
