# kind: wrong
# about: copies the worked example's 80 layers
# expect kv_gb: wrong /80 layers|Llama-3-70B/

kv_gb = 2 * 80 * {kv_heads} * {head_dim} * 1 * {prompt_len} / 1e9
