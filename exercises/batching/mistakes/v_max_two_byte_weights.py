# kind: wrong
# about: counts the FP8 weights at 2 bytes per parameter in the largest batch
# expect max_batch: wrong /2 bytes per parameter/

import math

max_batch = math.floor((0.010 * {tb_per_s}e12 - 2 * {params_b}e9) / ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
