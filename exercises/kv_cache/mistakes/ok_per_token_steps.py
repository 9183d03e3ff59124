# kind: correct
# about: per head, per layer, then all layers, with names

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    per_head = 2 * head_dim * bytes_per_value  # a key and a value
    per_layer = per_head * n_kv_heads
    return per_layer * n_layers
