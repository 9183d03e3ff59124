# kind: wrong
# about: solves 2B/b = ridge the wrong way round
# expect crossover_batch: wrong /solved upside down/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    ridge = peak_flops / bandwidth
    return ridge * 2 / bytes_per_param
