# kind: wrong
# about: keeps the worked example's 2 bytes per parameter though this model is stored in {precision} ({bytes_per_param} byte)
# expect gb_per_step: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\b2 bytes/

gb_per_step = {params_b}e9 * 2 / 1e9  # parameters x bytes, as in the worked example
