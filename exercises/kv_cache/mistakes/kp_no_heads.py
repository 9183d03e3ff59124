# kind: wrong
# about: forgets the KV heads
# expect kv_bytes_per_token: wrong /KV heads left out/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * head_dim * bytes_per_value
