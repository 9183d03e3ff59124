# kind: wrong
# about: reads the weights once per token
# expect forward_seconds: wrong /once per token|once for all its tokens/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    flops = 2 * n_params * n_tokens
    bytes_moved = n_params * bytes_per_param * n_tokens
    return step_seconds(flops, bytes_moved, peak_flops, bandwidth)
