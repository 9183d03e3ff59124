# kind: wrong
# about: compares the weights with one layer's cache per token
# expect even_context: wrong /one layer only/

even_context = {params_b}e9 * 2 / (2 * {n_kv_heads} * {head_dim} * 2)
