# kind: wrong
# about: reads 2 bytes per parameter (the worked example's BF16) instead of its {bytes_per_param}, so twice the time
# expect ms_per_token: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\b2 bytes/

ms_per_token = {params_b}e9 * 2 / {tb_per_s}e12 * 1000
