# kind: wrong
# about: converts to bits (x 8 bits per byte)
# expect gb_per_step: wrong /factor of (8|eight)|\b8 times|eight times|\bbits?\b/

gb_per_step = {params_b}e9 * {bytes_per_param} * 8 / 1e9  # bits per number
