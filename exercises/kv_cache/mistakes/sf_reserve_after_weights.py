# kind: wrong
# about: takes the 10% reserve from what the weights leave, in the count
# expect sequences_fit: wrong /what is left after the weights|whole .* GB/

sequences_fit = int((({memory_gb}e9 - {params_b}e9 * 2) * 0.9) // (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context}))
