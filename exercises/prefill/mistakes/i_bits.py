# kind: wrong
# about: converts bytes to bits
# expect prefill_intensity: wrong /\bbits\b/

def prefill_intensity(prompt_len, bytes_per_param):
    bits = bytes_per_param * 8
    return 2 * prompt_len / bits
