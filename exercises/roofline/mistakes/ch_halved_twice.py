# kind: wrong
# about: halves the already-dense 1,979 once more
# expect crossover_h100: wrong /halved twice|exactly half/

crossover_h100 = (1979e12 / 2) / 3.35e12 / 2
