# kind: wrong
# about: counts K and V twice in the largest batch
# expect max_batch: wrong /counted twice/

import math

max_batch = math.floor((0.010 * {tb_per_s}e12 - {params_b}e9) / ({context} * 2 * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
