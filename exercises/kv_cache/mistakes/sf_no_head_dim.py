# kind: wrong
# about: leaves the head dimension out of a sequence's cache
# expect sequences_fit: wrong /head dimension left out/

sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 2) // (2 * {n_layers} * {n_kv_heads} * 2 * {context}))
