# kind: wrong
# about: uses the 6ND training rule
# expect prompt_flops: wrong /training|forward and backward/

prompt_flops = 6 * {params_b}e9 * {prompt_len}  # 6 N D
