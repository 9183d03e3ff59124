# kind: wrong
# about: divides by 2**30
# expect kv_gb: wrong /GiB|2\^30/

kv_gb = 2 * 32 * 8 * 128 * 1 * 2700 / 2**30
