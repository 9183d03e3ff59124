# kind: wrong
# about: times the prefill alone, without the decode tokens
# expect spike_ms: wrong /prefill alone|share the pass/

spike_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2) * 1000
