# kind: wrong
# about: compares the prompt length itself with the ridge point
# expect is_compute_bound: wrong /prompt_len itself/

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    return prompt_len > ridge_point(peak_flops, bandwidth)
