# kind: wrong
# about: the ridge x bytes_per_param without the / 2 (blind TA's f_cb_no_half)
# expect crossover_batch: wrong /without the / 2/

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    return peak_flops / bandwidth * bytes_per_param
