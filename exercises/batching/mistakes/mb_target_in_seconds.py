# kind: wrong
# about: the 10 ms target used as 10 s (blind TA's mb_ms_units)
# expect max_batch: wrong /taken as 10 seconds|target must be in seconds/

max_batch = int((10 * {tb_per_s}e12 - {params_b}e9) / ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
