# kind: wrong
# about: gives the chunk's pass in seconds
# expect chunk_ms: wrong /in seconds/

chunk_ms = max(2 * 32e9 * 384 / 1.979e15, 32e9 / 3.35e12)
