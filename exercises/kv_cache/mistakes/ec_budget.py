# kind: wrong
# about: divides the KV budget instead of the weights
# expect even_context: wrong /whole budget|weight bytes/

even_context = ({memory_gb}e9 * 0.9 - {params_b}e9 * 2) / (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
