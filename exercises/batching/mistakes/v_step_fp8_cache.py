# kind: wrong
# about: stores the cache at 1 byte per value
# expect step_ms: wrong /cache in FP8/

step_ms = ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 1) / {tb_per_s}e12 * 1000
