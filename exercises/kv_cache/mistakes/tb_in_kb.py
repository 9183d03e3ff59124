# kind: wrong
# about: the bytes per token given in KB (blind TA's tb_kb)
# expect token_bytes: wrong /KB instead of bytes/

token_bytes = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 / 1000
