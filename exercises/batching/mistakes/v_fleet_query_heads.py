# kind: wrong
# about: counts the cache with the query heads in the fleet rate
# expect fleet_rate: wrong /query heads/

fleet_rate = {batch} * {tb_per_s}e12 / ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_heads} * {head_dim} * 2)
