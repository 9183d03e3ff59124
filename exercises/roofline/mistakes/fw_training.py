# kind: wrong
# about: uses the training rule, 6 FLOPs per parameter per token
# expect forward_seconds: wrong /training rule/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    return step_seconds(6 * n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth)
