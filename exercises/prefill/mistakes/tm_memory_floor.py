# kind: wrong
# about: computes the time to read the weights, as for decode
# expect ttft_ms: wrong /read the weights once|compute-bound/

ttft_ms = {params_b}e9 * 1 / ({tb_per_s} * 1e12) * 1000  # bytes / bandwidth
