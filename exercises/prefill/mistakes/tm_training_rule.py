# kind: wrong
# about: works the TTFT from 6 FLOPs per parameter per token (the training rule), its prompt_flops right
# expect ttft_ms: wrong /training|forward and backward/

ttft_ms = 6 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2 * 0.4) * 1000
