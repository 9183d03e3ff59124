# kind: wrong
# about: stores the cache at 1 byte per value
# expect step_ms: wrong /FP8/

step_ms = (8e9 + 16 * 2000 * 2 * 32 * 8 * 128 * 1) / 3.35e12 * 1000
