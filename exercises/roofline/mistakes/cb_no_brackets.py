# kind: wrong
# about: divides by 2 * bandwidth without the brackets
# expect crossover_batch: wrong /bracket/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    return peak_flops * bytes_per_param / 2 * bandwidth
