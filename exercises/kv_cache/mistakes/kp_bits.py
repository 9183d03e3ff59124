# kind: wrong
# about: counts bits
# expect kv_bytes_per_token: wrong /bits/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * 8
