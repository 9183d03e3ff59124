# kind: wrong
# about: thinks the pass is memory-bound like any decode step
# expect spike_ms: wrong /ordinary decode step|compute-bound/

spike_ms = 32e9 / 3.35e12 * 1000
