# kind: wrong
# about: copies the worked example's 80 layers
# expect token_bytes: wrong /80 layers/

token_bytes = 2 * 80 * {n_kv_heads} * {head_dim} * 2
