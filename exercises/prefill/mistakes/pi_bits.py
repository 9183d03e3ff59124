# kind: wrong
# about: divides by 8 bits per FP8 weight
# expect prompt_intensity: wrong /\bbits\b/

prompt_intensity = 2 * {prompt_len} / 8  # FP8 = 8 bits
