# kind: wrong
# about: returns TFLOP
# expect prefill_flops: wrong /TFLOP/

def prefill_flops(n_params, prompt_len):
    return 2 * n_params * prompt_len / 1e12
