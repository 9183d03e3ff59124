# kind: wrong
# about: rounds up
# expect sequences_fit: wrong /rounded up/

import math

budget = {memory_gb}e9 * 0.9 - {params_b}e9 * 2
sequences_fit = math.ceil(budget / (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context}))
