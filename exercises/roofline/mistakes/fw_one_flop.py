# kind: wrong
# about: one FLOP per parameter per token
# expect forward_seconds: wrong /1 FLOP per parameter|multiply and an add/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    return step_seconds(n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth)
