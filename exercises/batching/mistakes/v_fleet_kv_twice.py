# kind: wrong
# about: counts K and V twice in the fleet rate
# expect fleet_rate: wrong /counted twice/

fleet_rate = {batch} * {tb_per_s}e12 / ({params_b}e9 + {batch} * {context} * 2 * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
