# kind: wrong
# about: forgets the layers
# expect kv_bytes_written: wrong /layers left out/

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    return 2 * n_kv_heads * head_dim * bytes_per_value * prompt_len
