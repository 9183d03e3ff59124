# kind: wrong
# about: gives the cache all the memory after the weights
# expect budget_gb: wrong /reserve left out/

budget_gb = {memory_gb} - {params_b} * 2
