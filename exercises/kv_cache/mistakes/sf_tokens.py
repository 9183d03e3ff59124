# kind: wrong
# about: gives the tokens that fit
# expect sequences_fit: wrong /tokens that fit/

sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 2) // (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
