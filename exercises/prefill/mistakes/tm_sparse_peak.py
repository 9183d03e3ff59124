# kind: wrong
# about: uses the datasheet's {fp8_quote} (with sparsity) as the peak
# expect ttft_ms: wrong /sparse\b|headline|used as is/

ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 * 0.4) * 1000
