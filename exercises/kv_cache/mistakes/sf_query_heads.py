# kind: wrong
# about: uses the query heads
# expect sequences_fit: wrong /query heads/

sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 2) // (2 * {n_layers} * {n_heads} * {head_dim} * 2 * {context}))
