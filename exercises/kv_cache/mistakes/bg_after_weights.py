# kind: wrong
# about: takes the 10% from what the weights leave
# expect budget_gb: wrong /what is left after the weights|whole .* GB/

budget_gb = ({memory_gb} - {params_b} * 2) * 0.9
