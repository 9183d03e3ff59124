# kind: wrong
# about: gives the answer in MB
# expect token_bytes: wrong /MB/

token_bytes = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 / 1e6  # MB
