# kind: wrong
# about: thinks a chunked pass is memory-bound
# expect chunk_ms: wrong /ordinary decode step/

chunk_ms = {params_b}e9 / {tb_per_s}e12 * 1000  # the weight read
