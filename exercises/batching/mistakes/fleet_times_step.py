# kind: wrong
# about: the batch multiplied by the step time instead of divided by it (blind TA's fleet_times)
# expect fleet_rate: wrong /multiplied by the step time/

fleet_rate = {batch} * ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / {tb_per_s}e12
