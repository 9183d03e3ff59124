# kind: wrong
# about: bytes per FLOP: divides the bytes by the FLOPs
# expect prompt_intensity: wrong /reciprocal|upside down/

prompt_intensity = 1 / (2 * {prompt_len})
