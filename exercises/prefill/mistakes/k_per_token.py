# kind: wrong
# about: returns bytes per position
# expect kv_bytes_written: wrong /one position/

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    per_token = 2 * n_layers * n_kv_heads * head_dim * bytes_per_value
    return per_token
