# kind: wrong
# about: adds the compute and memory times
# expect spike_ms: wrong /two times added/

spike_ms = (2 * 32e9 * 6128 / 1.979e15 + 32e9 / 3.35e12) * 1000
