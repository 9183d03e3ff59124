# kind: wrong
# about: forgets the weights
# expect budget_gb: wrong /weights left out/

budget_gb = 80 * 0.9
