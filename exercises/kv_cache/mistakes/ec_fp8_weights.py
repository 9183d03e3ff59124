# kind: wrong
# about: takes the weights as one byte per parameter
# expect even_context: wrong /half|1 byte per parameter/

even_context = {params_b}e9 / (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
