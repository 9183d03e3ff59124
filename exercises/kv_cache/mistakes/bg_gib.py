# kind: wrong
# about: gives the budget in GiB
# expect budget_gb: wrong /GiB|2\^30/

budget_gb = (80e9 * 0.9 - 16e9) / 2**30
