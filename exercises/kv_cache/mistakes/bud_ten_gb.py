# kind: wrong
# about: 10 GB kept back where the reserve is 10% of the memory (blind TA's bud_10gb)
# expect budget_gb: wrong /10 GB kept back|a share, not an amount/

budget_gb = {memory_gb} - 10 - {params_b} * 2
