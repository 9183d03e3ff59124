# kind: wrong
# about: counts bits (x 8) in gb_per_step, then works ms_per_token and max_tokens_per_s right from it (one slip: it costs gb_per_step only)
# expect gb_per_step: wrong /factor of (8|eight)|\b8 times|eight times|\bbits?\b/

gb_per_step = {params_b}e9 * {bytes_per_param} * 8 / 1e9  # bits per number
ms_per_token = gb_per_step / {tb_per_s}  # GB / (TB/s) = ms
max_tokens_per_s = 1000 / ms_per_token
