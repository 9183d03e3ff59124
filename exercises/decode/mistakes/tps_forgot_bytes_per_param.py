# kind: wrong
# about: 1e12 / 7e9: forgets 2 bytes per parameter, twice too fast
# expect max_tokens_per_s: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|bytes per param|counting parameters|parameters (instead of|not|rather than) bytes|already (in|counts?) bytes|2 bytes/

max_tokens_per_s = round(1e12 / 7e9, 1)
