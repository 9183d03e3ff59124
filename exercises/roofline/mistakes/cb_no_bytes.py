# kind: wrong
# about: forgets the bytes per parameter
# expect crossover_batch: wrong /bytes per parameter left out/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    return peak_flops / bandwidth / 2
