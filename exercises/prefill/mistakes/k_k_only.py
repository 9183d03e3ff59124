# kind: wrong
# about: counts only the keys
# expect kv_bytes_written: wrong /K or V only/

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    return n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len
