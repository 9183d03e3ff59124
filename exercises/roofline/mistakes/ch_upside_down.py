# kind: wrong
# about: solves for the batch the wrong way round
# expect crossover_h100: wrong /upside down/

ridge = 1979e12 / 3.35e12
crossover_h100 = ridge * 2 / 1
