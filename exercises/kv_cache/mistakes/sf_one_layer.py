# kind: wrong
# about: sizes a sequence's cache for one layer only
# expect sequences_fit: wrong /one layer only/

sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 2) // (2 * {n_kv_heads} * {head_dim} * 2 * {context}))
