# kind: wrong
# about: adds the two times of the chunk's pass
# expect chunk_ms: wrong /two times added/

chunk_ms = (2 * 32e9 * 384 / 1.979e15 + 32e9 / 3.35e12) * 1000
