# kind: wrong
# about: returns only the aggregate number, not the pair
# expect batch_throughput: wrong /pair|a (float|number|single number),? not|returned a (float|single number)|only one (number|value)|not a tuple/

def batch_throughput(param_bytes, bandwidth, batch):
    return batch * tokens_per_second(param_bytes, bandwidth)
