# kind: wrong
# about: counts BF16 as 16 per value
# expect token_bytes: wrong /bits/

token_bytes = 2 * 32 * 8 * 128 * 16
