# kind: wrong
# about: answers in TFLOP
# expect prompt_flops: wrong /TFLOP/

prompt_flops = 2 * 8e9 * 2700 / 1e12  # TFLOP
