# kind: wrong
# about: divides by 2**30
# expect kv_gb: wrong /GiB|2\^30/

kv_gb = 2 * {layers} * {kv_heads} * {head_dim} * 1 * {prompt_len} / 2**30
