# kind: wrong
# about: 3.35e12 / 26e9: 2 bytes per parameter as in the worked example, so half the rate
# expect max_tokens_per_s: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|\b2 bytes/

max_tokens_per_s = round(3.35e12 / 26e9, 1)
