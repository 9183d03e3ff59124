# kind: wrong
# about: uses the 32 query heads
# expect token_bytes: wrong /32 query heads/

token_bytes = 2 * 32 * 32 * 128 * 2
