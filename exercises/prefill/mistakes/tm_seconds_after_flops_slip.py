# kind: wrong
# about: uses the training rule for the FLOPs, and gives the TTFT in seconds, from the right FLOPs (two slips)
# expect prompt_flops: wrong /training|forward and backward/
# expect ttft_ms: wrong /time in seconds|1,000/

prompt_flops = 6 * {params_b}e9 * {prompt_len}
ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2 * 0.4)  # seconds
