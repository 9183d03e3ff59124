# kind: wrong
# about: times the prefill alone, without the decode tokens
# expect spike_ms: wrong /prefill alone|share the pass/

spike_ms = 2 * 32e9 * 6000 / 1.979e15 * 1000
