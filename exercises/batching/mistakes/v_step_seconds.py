# kind: wrong
# about: gives the step in seconds
# expect step_ms: wrong /time in seconds/

step_ms = ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / {tb_per_s}e12
