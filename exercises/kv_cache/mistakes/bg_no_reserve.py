# kind: wrong
# about: gives the cache all the memory after the weights
# expect budget_gb: wrong /reserve left out/

budget_gb = 80 - 16
