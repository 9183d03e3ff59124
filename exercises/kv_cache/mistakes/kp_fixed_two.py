# kind: wrong
# about: hard-codes BF16
# expect kv_bytes_per_token: wrong /2 bytes per value/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * 2
