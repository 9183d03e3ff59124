# kind: wrong
# about: leaves the answer in bytes
# expect kv_gb: wrong /answer in bytes/

kv_gb = 2 * 32 * 8 * 128 * 1 * 2700
