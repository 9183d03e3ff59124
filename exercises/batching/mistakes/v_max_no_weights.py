# kind: wrong
# about: forgets the weights
# expect max_batch: wrong /weights left out/

max_batch = int(0.010 * 3.35e12 // (2000 * 2 * 32 * 8 * 128 * 2))
