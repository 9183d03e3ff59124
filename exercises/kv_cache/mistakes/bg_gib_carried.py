# kind: wrong
# about: gives the budget in GiB and divides that as if it were GB for the sequences that fit
# expect budget_gb: wrong /GiB|2\^30/

budget_gb = ({memory_gb}e9 * 0.9 - {params_b}e9 * 2) / 2**30
sequences_fit = int(budget_gb * 1e9 // (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context}))
