# kind: wrong
# about: keeps the worked example's 2 bytes per parameter in gb_per_step, then works ms_per_token and max_tokens_per_s right from it (one slip: it costs gb_per_step only)
# expect gb_per_step: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\b2 bytes/

gb_per_step = {params_b}e9 * 2 / 1e9  # parameters x bytes, as in the worked example
ms_per_token = gb_per_step / {tb_per_s}  # GB / (TB/s) = ms
max_tokens_per_s = 1000 / ms_per_token
