# kind: wrong
# about: the prefill pass, then a separate decode step
# expect spike_ms: wrong /two passes/

prefill = 2 * 32e9 * 6000 / 1.979e15
decode = 32e9 / 3.35e12  # memory-bound
spike_ms = (prefill + decode) * 1000
