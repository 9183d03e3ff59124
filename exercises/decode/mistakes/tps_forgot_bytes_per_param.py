# kind: wrong
# about: 2 bytes per parameter as in the worked example, so half the rate
# expect max_tokens_per_s: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|\b2 bytes/

max_tokens_per_s = round({tb_per_s}e12 / ({params_b}e9 * 2), 1)
