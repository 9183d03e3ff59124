# kind: wrong
# about: returns the ridge point as the batch
# expect crossover_batch: wrong /ridge point itself/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    return peak_flops / bandwidth
