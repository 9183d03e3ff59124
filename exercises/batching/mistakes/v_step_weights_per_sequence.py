# kind: wrong
# about: reads the weights for each of the 16 sequences
# expect step_ms: wrong /once per sequence|shares one read/

step_ms = 16 * (8e9 + 2000 * 2 * 32 * 8 * 128 * 2) / 3.35e12 * 1000
