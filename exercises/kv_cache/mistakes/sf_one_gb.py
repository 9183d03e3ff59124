# kind: wrong
# about: works one sequence out in GiB (2**30) and divides the budget in GB by it
# expect sequences_fit: wrong /same unit/

import math

budget_gb = {memory_gb} * 0.9 - {params_b} * 2
sequence_gib = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context} / 2**30
sequences_fit = math.floor(budget_gb / sequence_gib)
