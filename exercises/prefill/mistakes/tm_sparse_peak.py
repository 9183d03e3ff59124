# kind: wrong
# about: uses the datasheet's 3,958 TFLOPS (with sparsity) as the peak
# expect ttft_ms: wrong /sparse\b|headline|used as is/

ttft_ms = 2 * 8e9 * 2700 / (3958e12 * 0.4) * 1000
