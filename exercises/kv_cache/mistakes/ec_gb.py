# kind: wrong
# about: divides the weights' GB, not their bytes
# expect even_context: wrong /in GB|not in bytes/

even_context = {params_b} * 2 / (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
