# kind: wrong
# about: uses the query heads
# expect sequences_fit: wrong /query heads/

sequences_fit = int(56e9 // (2 * 32 * 32 * 128 * 2 * 8192))
