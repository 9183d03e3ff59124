# kind: wrong
# about: multiplies by 8 for bits
# expect kv_bytes_written: wrong /\bbits\b/

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * 8 * prompt_len
