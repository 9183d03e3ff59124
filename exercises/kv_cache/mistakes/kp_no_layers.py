# kind: wrong
# about: one layer
# expect kv_bytes_per_token: wrong /layers left out/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_kv_heads * head_dim * bytes_per_value
