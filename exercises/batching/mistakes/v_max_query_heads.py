# kind: wrong
# about: uses the {n_heads} query heads
# expect max_batch: wrong /query heads give/

max_batch = int((0.010 * {tb_per_s}e12 - {params_b}e9) // ({context} * 2 * {n_layers} * {n_heads} * {head_dim} * 2))
