# kind: wrong
# about: thinks a chunked pass is memory-bound
# expect chunk_ms: wrong /three slips|compute-bound/

chunk_ms = 32e9 / 3.35e12 * 1000  # the weight read
