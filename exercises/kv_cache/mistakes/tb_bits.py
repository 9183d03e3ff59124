# kind: wrong
# about: counts BF16 as 16 per value
# expect token_bytes: wrong /bits/

token_bytes = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 16
