# kind: correct
# about: solves for the batch in two steps

def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    ridge = peak_flops / bandwidth
    # 2 * B / b = ridge  =>  B = ridge * b / 2
    return 0.5 * ridge * bytes_per_param
