# kind: wrong
# about: reads one 2,000-token cache, not 16
# expect step_ms: wrong /one sequence's cache only/

step_ms = (8e9 + 2000 * 2 * 32 * 8 * 128 * 2) / 3.35e12 * 1000
