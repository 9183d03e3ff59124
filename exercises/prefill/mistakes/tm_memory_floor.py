# kind: wrong
# about: computes the time to read the weights, as for decode
# expect ttft_ms: wrong /read the weights once|compute-bound/

ttft_ms = 8e9 * 1 / 3.35e12 * 1000  # bytes / bandwidth
