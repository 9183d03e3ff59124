# kind: wrong
# about: uses the 6ND training rule
# expect prompt_flops: wrong /training|forward and backward/

prompt_flops = 6 * 8e9 * 2700  # 6 N D
