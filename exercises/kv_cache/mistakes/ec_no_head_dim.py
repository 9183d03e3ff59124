# kind: wrong
# about: leaves the head dimension out of the cache per token
# expect even_context: wrong /head dimension left out/

even_context = {params_b}e9 * 2 / (2 * {n_layers} * {n_kv_heads} * 2)
