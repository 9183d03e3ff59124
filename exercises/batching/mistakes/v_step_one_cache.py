# kind: wrong
# about: reads one {context_text}-token cache, not {batch}
# expect step_ms: wrong /one sequence's cache only/

step_ms = ({params_b}e9 + {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / {tb_per_s}e12 * 1000
