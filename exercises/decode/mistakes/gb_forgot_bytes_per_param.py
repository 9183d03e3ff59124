# kind: wrong
# about: counts parameters, not bytes: forgets the 2 bytes per parameter (factor 2)
# expect gb_per_step: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|counting parameters|parameters (instead of|not|rather than) bytes|forg[oe]t the bytes per param/

gb_per_step = 7  # 7 billion parameters -> 7 GB
