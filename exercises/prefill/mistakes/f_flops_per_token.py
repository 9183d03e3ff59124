# kind: wrong
# about: returns the FLOPs of one token
# expect prefill_flops: wrong /one token|every one of the/

def prefill_flops(n_params, prompt_len):
    return 2 * n_params
