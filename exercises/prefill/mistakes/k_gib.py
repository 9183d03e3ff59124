# kind: wrong
# about: returns GiB
# expect kv_bytes_written: wrong /GiB/

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len / 1024**3
