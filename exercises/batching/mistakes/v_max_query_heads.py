# kind: wrong
# about: uses the 32 query heads
# expect max_batch: wrong /query heads/

max_batch = int((0.010 * 3.35e12 - 8e9) // (2000 * 2 * 32 * 32 * 128 * 2))
