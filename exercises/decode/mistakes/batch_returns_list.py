# kind: wrong
# about: returns a list [aggregate, per_stream] instead of a tuple
# expect batch_throughput: wrong /returned a list|a list,? not|not a tuple|list instead of a tuple/

def batch_throughput(param_bytes, bandwidth, batch):
    t = tokens_per_second(param_bytes, bandwidth)
    return [batch * t, t]
