# kind: wrong
# about: halves the peak for sparsity
# expect crossover_batch: wrong /peak halved|already the dense peak/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    ridge = (peak_flops / 2) / bandwidth  # dense is half the datasheet
    return ridge * bytes_per_param / 2
