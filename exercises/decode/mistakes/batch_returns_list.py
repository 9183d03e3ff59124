# kind: wrong
# about: returns a list [aggregate, per_stream] instead of a tuple
# expect batch_throughput: wrong /tuple|list|type/

def batch_throughput(param_bytes, bandwidth, batch):
    t = tokens_per_second(param_bytes, bandwidth)
    return [batch * t, t]
