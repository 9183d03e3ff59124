# kind: wrong
# about: the step time cut to one decimal with int(x * 10) / 10 instead of rounded to 3 significant figures
# expect step_ms: wrong /right value (rounded|cut)|rounded to 2 significant figures|cut short|truncat|too far/

kv_per_token = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2
step_ms = int(({params_b}e9 + {batch} * {context} * kv_per_token) / {tb_per_s}e12 * 1e4) / 10
