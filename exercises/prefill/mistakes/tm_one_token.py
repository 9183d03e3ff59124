# kind: wrong
# about: times the FLOPs of one token only, its prompt_flops right
# expect ttft_ms: wrong /one token/

ttft_ms = 2 * {params_b}e9 / ({sparse_tflops}e12 / 2 * 0.4) * 1000
