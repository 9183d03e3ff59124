# kind: wrong
# about: uses // so the intensity comes out as a whole number
# expect prefill_intensity: wrong /`\/\/`|rounds down|whole number/

def prefill_intensity(prompt_len, bytes_per_param):
    return 2 * prompt_len // bytes_per_param
