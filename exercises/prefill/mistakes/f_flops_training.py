# kind: wrong
# about: uses the 6N training rule
# expect prefill_flops: wrong /training|forward and backward/

def prefill_flops(n_params, prompt_len):
    return 6 * n_params * prompt_len  # 6ND
