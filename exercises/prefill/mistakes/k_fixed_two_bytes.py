# kind: wrong
# about: hard-codes 2 bytes per value (BF16)
# expect kv_bytes_written: wrong /2 bytes per value written in|use the argument/

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * 2 * prompt_len  # K and V, 2 bytes each
