# kind: correct
# about: the roofline written inline with max

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    weight_bytes = n_params * bytes_per_param
    flops = 2.0 * n_params * n_tokens
    return max(flops / peak_flops, weight_bytes / bandwidth)
