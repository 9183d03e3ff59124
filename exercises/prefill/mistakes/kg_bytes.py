# kind: wrong
# about: leaves the answer in bytes
# expect kv_gb: wrong /answer in bytes/

kv_gb = 2 * {layers} * {kv_heads} * {head_dim} * 1 * {prompt_len}
