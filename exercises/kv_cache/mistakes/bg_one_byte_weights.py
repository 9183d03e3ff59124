# kind: wrong
# about: counts the weights as one byte per parameter (the parameters in billions taken as GB)
# expect budget_gb: wrong /1 byte per parameter/

budget_gb = {memory_gb} * 0.9 - {params_b}
