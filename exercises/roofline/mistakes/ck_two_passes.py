# kind: wrong
# about: a decode step and the chunk as two passes
# expect chunk_ms: wrong /two passes/

decode = max(2 * 32e9 * 128 / 1.979e15, 32e9 / 3.35e12)
chunk = max(2 * 32e9 * 256 / 1.979e15, 32e9 / 3.35e12)
chunk_ms = (decode + chunk) * 1000
