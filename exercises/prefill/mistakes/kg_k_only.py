# kind: wrong
# about: stores keys only (no factor 2)
# expect kv_gb: wrong /K or V only/

kv_gb = {layers} * {kv_heads} * {head_dim} * 1 * {prompt_len} / 1e9
