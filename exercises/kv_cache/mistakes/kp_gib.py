# kind: wrong
# about: returns GiB
# expect kv_bytes_per_token: wrong /GiB/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value / 1024**3
