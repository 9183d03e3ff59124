# kind: wrong
# about: uses 7e9 bytes (forgets 2 bytes per parameter), so half the time
# expect ms_per_token: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|counting parameters|parameters (instead of|not|rather than) bytes|forg[oe]t the bytes per param/

ms_per_token = 7e9 / 1e12 * 1000
