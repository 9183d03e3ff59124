# kind: wrong
# about: divides the other way
# expect even_context: wrong /upside down/

even_context = (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / ({params_b}e9 * 2)
