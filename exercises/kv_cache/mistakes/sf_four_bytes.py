# kind: wrong
# about: counts the BF16 weights at 4 bytes per parameter in the count
# expect sequences_fit: wrong /4 bytes per parameter/

sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 4) // (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context}))
