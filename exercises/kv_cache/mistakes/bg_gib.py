# kind: wrong
# about: gives the budget in GiB
# expect budget_gb: wrong /GiB|2\^30/

budget_gb = ({memory_gb}e9 * 0.9 - {params_b}e9 * 2) / 2**30
