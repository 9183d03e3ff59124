# kind: wrong
# about: 1 FLOP per parameter per token
# expect prefill_intensity: wrong /1 FLOP per parameter|multiply and an add/

def prefill_intensity(prompt_len, bytes_per_param):
    return prompt_len / bytes_per_param
