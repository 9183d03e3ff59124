# kind: wrong
# about: converts to bits (x 8): 8-bit numbers -> 104
# expect gb_per_step: wrong /factor of (8|eight)|\b8 times|eight times|\bbits?\b/

gb_per_step = 13e9 * 8 / 1e9  # 8 bits per number
