# kind: wrong
# about: the FLOPs of one token only
# expect forward_seconds: wrong /one token's FLOPs/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    return step_seconds(2 * n_params, n_params * bytes_per_param, peak_flops, bandwidth)
