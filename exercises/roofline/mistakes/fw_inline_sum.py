# kind: wrong
# about: writes the step inline and adds the two times
# expect forward_seconds: wrong /two times added/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    compute = 2 * n_params * n_tokens / peak_flops
    memory = n_params * bytes_per_param / bandwidth
    return compute + memory
