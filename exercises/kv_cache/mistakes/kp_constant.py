# kind: wrong
# about: returns the worked example's number
# expect kv_bytes_per_token: wrong /hard-coded|same answer/

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 327680
