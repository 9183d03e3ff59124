# kind: wrong
# about: divides by 2 bytes as if the model were BF16
# expect prompt_intensity: wrong /left out|2 bytes per parameter where/

prompt_intensity = 2 * {prompt_len} / 2
