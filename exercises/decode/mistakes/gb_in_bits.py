# kind: wrong
# about: converts to bits (x 8): 16-bit numbers -> 112
# expect gb_per_step: wrong /factor of (8|eight)|\b8 times|eight times|\bbits?\b/

gb_per_step = 7e9 * 16 / 1e9  # 16 bits per number
