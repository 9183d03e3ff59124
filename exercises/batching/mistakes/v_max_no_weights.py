# kind: wrong
# about: forgets the weights
# expect max_batch: wrong /weights left out/

max_batch = int(0.010 * {tb_per_s}e12 // ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
