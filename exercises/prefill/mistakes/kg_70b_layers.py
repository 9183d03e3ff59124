# kind: wrong
# about: copies the worked example's 80 layers
# expect kv_gb: wrong /80 layers|Llama-3-70B/

kv_gb = 2 * 80 * 8 * 128 * 1 * 2700 / 1e9
