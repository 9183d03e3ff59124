# kind: wrong
# about: the FLOPs and the bytes swapped in the call to step_seconds (blind TA's f_fs_swapped): the same results as the peak and the bandwidth swapped on every input, so both are said
# expect forward_seconds: wrong /`peak_flops` and `bandwidth` in each other's places; or `step_seconds\(n_params \* bytes_per_param/

def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    return step_seconds(n_params * bytes_per_param, 2 * n_params * n_tokens, peak_flops, bandwidth)
