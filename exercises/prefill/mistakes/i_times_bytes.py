# kind: wrong
# about: multiplies by the bytes per parameter
# expect prefill_intensity: wrong /multiplying by the bytes/

def prefill_intensity(prompt_len, bytes_per_param):
    return 2 * prompt_len * bytes_per_param
