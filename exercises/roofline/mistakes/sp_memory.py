# kind: wrong
# about: thinks the pass is memory-bound like any decode step
# expect spike_ms: wrong /ordinary decode step|compute-bound/

spike_ms = {params_b}e9 / {tb_per_s}e12 * 1000
