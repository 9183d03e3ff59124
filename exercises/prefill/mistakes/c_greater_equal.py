# kind: wrong
# about: uses >= , so the ridge point itself counts as compute-bound
# expect is_compute_bound: wrong /ridge point itself|`>=`/

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    return prefill_intensity(prompt_len, bytes_per_param) >= ridge_point(peak_flops, bandwidth)
