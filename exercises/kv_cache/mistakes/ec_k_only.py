# kind: wrong
# about: uses the keys' bytes only
# expect even_context: wrong /twice|factor 2/

even_context = {params_b}e9 * 2 / ({n_layers} * {n_kv_heads} * {head_dim} * 2)
