# kind: wrong
# about: returns a description instead of a bool
# expect is_compute_bound: wrong /not True or False|is a bool/

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    if prefill_intensity(prompt_len, bytes_per_param) > ridge_point(peak_flops, bandwidth):
        return "compute-bound"
    return "memory-bound"
