# kind: wrong
# about: gives the answer in seconds
# expect spike_ms: wrong /in seconds/

spike_ms = max(2 * 32e9 * 6128 / 1.979e15, 32e9 / 3.35e12)
