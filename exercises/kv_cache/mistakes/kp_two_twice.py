# kind: wrong
# about: multiplies by 2 for K and V a second time
# expect kv_bytes_per_token: wrong /counted twice/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * 2
