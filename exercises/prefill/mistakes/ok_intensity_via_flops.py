# kind: correct
# about: writes it as prefill_flops over the bytes of one parameter

def prefill_intensity(prompt_len, bytes_per_param):
    return prefill_flops(1, prompt_len) / bytes_per_param
