# kind: wrong
# about: copies the worked example's crossover
# expect crossover_h100: wrong /worked example's replica|one H100/

crossover_h100 = 206
