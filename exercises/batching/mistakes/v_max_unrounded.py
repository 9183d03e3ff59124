# kind: wrong
# about: leaves the number of sequences unrounded
# expect max_batch: wrong /unrounded/

max_batch = (0.010 * {tb_per_s}e12 - {params_b}e9) / ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
