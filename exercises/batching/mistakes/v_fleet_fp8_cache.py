# kind: wrong
# about: counts the cache at 1 byte per value in the fleet rate
# expect fleet_rate: wrong /cache in FP8/

fleet_rate = {batch} * {tb_per_s}e12 / ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 1)
