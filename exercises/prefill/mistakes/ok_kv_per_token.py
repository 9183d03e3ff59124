# kind: correct
# about: bytes per token first, then times the positions

def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    k_and_v = 2
    per_token = k_and_v * n_layers * n_kv_heads * head_dim * bytes_per_value
    return per_token * prompt_len
