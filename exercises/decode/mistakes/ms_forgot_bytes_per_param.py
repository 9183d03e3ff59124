# kind: wrong
# about: reads 2 bytes per parameter (the worked example's BF16) instead of FP8's 1, so twice the time
# expect ms_per_token: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\b2 bytes/

ms_per_token = 13e9 * 2 / 3.35e12 * 1000
