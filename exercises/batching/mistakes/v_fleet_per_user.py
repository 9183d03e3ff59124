# kind: wrong
# about: gives one user's tokens/s
# expect fleet_rate: wrong /one user's rate/

fleet_rate = {tb_per_s}e12 / ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
