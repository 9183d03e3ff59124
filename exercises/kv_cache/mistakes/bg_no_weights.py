# kind: wrong
# about: forgets the weights
# expect budget_gb: wrong /weights left out/

budget_gb = {memory_gb} * 0.9
