# kind: wrong
# about: gives bytes
# expect budget_gb: wrong /answer in bytes/

budget_gb = {memory_gb}e9 * 0.9 - {params_b}e9 * 2
