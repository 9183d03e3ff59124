# kind: wrong
# about: answers in TFLOP
# expect prompt_flops: wrong /TFLOP/

prompt_flops = 2 * {params_b}e9 * {prompt_len} / 1e12  # TFLOP
