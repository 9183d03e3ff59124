# kind: wrong
# about: uses the datasheet's sparse FP8 figure as the dense peak
# expect crossover_h100: wrong /exactly twice/

crossover_h100 = 3958e12 / 3.35e12 * 1 / 2
