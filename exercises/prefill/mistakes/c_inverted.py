# kind: wrong
# about: the comparison the wrong way round
# expect is_compute_bound: wrong /opposite/

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    return prefill_intensity(prompt_len, bytes_per_param) < ridge_point(peak_flops, bandwidth)
