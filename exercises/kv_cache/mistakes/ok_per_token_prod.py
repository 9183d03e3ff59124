# kind: correct
# about: math.prod over the factors

import math

def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    return math.prod([2, n_layers, n_kv_heads, head_dim, bytes_per_value])
