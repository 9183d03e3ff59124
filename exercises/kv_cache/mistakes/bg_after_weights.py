# kind: wrong
# about: takes the 10% from what the weights leave
# expect budget_gb: wrong /what is left after the weights|whole 80 GB/

budget_gb = (80 - 16) * 0.9
