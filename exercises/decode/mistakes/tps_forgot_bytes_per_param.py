# kind: wrong
# about: 1e12 / 7e9: forgets 2 bytes per parameter, twice too fast
# expect max_tokens_per_s: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|counting parameters|parameters (instead of|not|rather than) bytes|forg[oe]t the bytes per param/

max_tokens_per_s = round(1e12 / 7e9, 1)
