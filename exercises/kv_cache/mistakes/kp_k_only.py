# kind: wrong
# about: keys only
# expect kv_bytes_per_token: wrong /K or V only|factor 2/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return n_layers * n_kv_heads * head_dim * bytes_per_value
