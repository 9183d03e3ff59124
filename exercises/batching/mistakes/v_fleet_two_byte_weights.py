# kind: wrong
# about: counts the FP8 weights at 2 bytes per parameter in the fleet rate
# expect fleet_rate: wrong /2 bytes per parameter/

fleet_rate = {batch} * {tb_per_s}e12 / (2 * {params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)
