# kind: wrong
# about: does not round down
# expect sequences_fit: wrong /not rounded down/

sequences_fit = ({memory_gb}e9 * 0.9 - {params_b}e9 * 2) / (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context})
