# kind: wrong
# about: the step time rounded to 2 significant figures, one fewer than the page allows
# expect step_ms: wrong /right value (rounded|cut)|rounded to 2 significant figures|too far/

kv_per_token = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2
step_ms = float(f"{({params_b}e9 + {batch} * {context} * kv_per_token) / {tb_per_s}e12 * 1e3:.2g}")
