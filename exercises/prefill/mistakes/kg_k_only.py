# kind: wrong
# about: stores keys only (no factor 2)
# expect kv_gb: wrong /K or V only/

kv_gb = 32 * 8 * 128 * 1 * 2700 / 1e9
