# kind: wrong
# about: counts 1 FLOP per parameter per token, then works the TTFT right from those FLOPs (one slip, carried)
# expect prompt_flops: wrong /1 FLOP per parameter/

prompt_flops = {params_b}e9 * {prompt_len}  # 1 FLOP per parameter per token
ttft_ms = prompt_flops / ({sparse_tflops}e12 / 2 * 0.4) * 1000
