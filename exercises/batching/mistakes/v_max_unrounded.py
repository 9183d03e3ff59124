# kind: wrong
# about: leaves the number of sequences unrounded
# expect max_batch: wrong /unrounded/

max_batch = (0.010 * 3.35e12 - 8e9) / (2000 * 2 * 32 * 8 * 128 * 2)
