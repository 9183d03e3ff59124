# kind: wrong
# about: uses the {n_heads} query heads for the cache
# expect step_ms: wrong /query heads give/

step_ms = ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_heads} * {head_dim} * 2) / {tb_per_s}e12 * 1000
