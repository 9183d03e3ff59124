# kind: wrong
# about: uses the {n_heads} query heads
# expect token_bytes: wrong /query heads give/

token_bytes = 2 * {n_layers} * {n_heads} * {head_dim} * 2
