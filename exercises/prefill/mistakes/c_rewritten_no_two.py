# kind: wrong
# about: rewrites the intensity without the factor 2
# expect is_compute_bound: wrong /factor 2 left out/

def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    intensity = prompt_len / bytes_per_param
    return intensity > peak_flops / bandwidth
