# kind: wrong
# about: rounds the number of sequences up
# expect max_batch: wrong /rounded up/

import math

max_batch = math.ceil((0.010 * {tb_per_s}e12 - {params_b}e9) / ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
