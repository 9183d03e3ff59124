# kind: wrong
# about: uses the 32 query heads for the cache
# expect step_ms: wrong /query heads/

step_ms = (8e9 + 16 * 2000 * 2 * 32 * 32 * 128 * 2) / 3.35e12 * 1000
