# kind: wrong
# about: counts the weights as n_params bytes
# expect forward_seconds: wrong /left out of the bytes/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    return step_seconds(2 * n_params * n_tokens, n_params, peak_flops, bandwidth)
