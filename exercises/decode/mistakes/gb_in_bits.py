# kind: wrong
# about: converts to bits (x 8): 16-bit numbers -> 112
# expect gb_per_step: wrong /factor of 8|8 times|eight|bits/

gb_per_step = 7e9 * 16 / 1e9  # 16 bits per number
