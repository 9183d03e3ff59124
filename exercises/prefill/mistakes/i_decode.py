# kind: wrong
# about: the decode step's 2 / b, independent of the prompt
# expect prefill_intensity: wrong /one token|decode step/

def prefill_intensity(prompt_len, bytes_per_param):
    return 2 / bytes_per_param
