# kind: wrong
# about: counts only the keys
# expect token_bytes: wrong /K or V only|exactly half/

token_bytes = {n_layers} * {n_kv_heads} * {head_dim} * 2
