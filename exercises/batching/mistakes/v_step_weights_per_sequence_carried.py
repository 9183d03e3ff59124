# kind: wrong
# about: reads the weights for each of the {batch} sequences, and works the fleet rate from that step
# expect step_ms: wrong /once per sequence|shares one read/

step_ms = {batch} * ({params_b}e9 + {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / {tb_per_s}e12 * 1000
fleet_rate = {batch} / (step_ms / 1000)  # right from the learner's own step
