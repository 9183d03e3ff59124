# kind: wrong
# about: gives the unchunked gap again
# expect chunk_ms: wrong /whole 6,000-token prompt|one chunk of 256/

chunk_ms = max(2 * 32e9 * 6128 / 1.979e15, 32e9 / 3.35e12) * 1000
