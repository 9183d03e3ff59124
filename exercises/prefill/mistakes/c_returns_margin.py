# kind: wrong
# about: returns how far above the ridge point it is, a number
# expect is_compute_bound: wrong /not True or False|is a bool/

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    return prefill_intensity(prompt_len, bytes_per_param) - ridge_point(peak_flops, bandwidth)
