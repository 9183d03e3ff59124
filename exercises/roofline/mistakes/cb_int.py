# kind: wrong
# about: rounds the batch down to a whole number of sequences
# expect crossover_batch: wrong /rounded down|return the float/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    return int(peak_flops / bandwidth * bytes_per_param / 2)  # a batch is a whole number
