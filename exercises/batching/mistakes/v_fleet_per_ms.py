# kind: wrong
# about: divides {batch} by the step time in ms
# expect fleet_rate: wrong /millisecond/

fleet_rate = {batch} / (({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / {tb_per_s}e12 * 1000)
