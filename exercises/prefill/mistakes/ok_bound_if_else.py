# kind: correct
# about: an if/else returning True or False

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    intensity = prefill_intensity(prompt_len, bytes_per_param)
    ridge = ridge_point(peak_flops, bandwidth)
    if intensity > ridge:
        return True
    else:
        return False
