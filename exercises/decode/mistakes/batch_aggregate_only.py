# kind: wrong
# about: returns only the aggregate number, not the pair
# expect batch_throughput: wrong /tuple|pair|two (numbers|values)|per.?stream|not a tuple|type/

def batch_throughput(param_bytes, bandwidth, batch):
    return batch * tokens_per_second(param_bytes, bandwidth)
