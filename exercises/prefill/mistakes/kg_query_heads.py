# kind: wrong
# about: uses the 32 query heads instead of the 8 KV heads
# expect kv_gb: wrong /32 query heads/

kv_gb = 2 * 32 * 32 * 128 * 1 * 2700 / 1e9
