# kind: wrong
# about: returns only the aggregate number, not the pair
# expect batch_throughput: wrong /tuple|pair|two (numbers|values)|a (float|number|single number),? not|returned a float|only one (number|value)/

def batch_throughput(param_bytes, bandwidth, batch):
    return batch * tokens_per_second(param_bytes, bandwidth)
