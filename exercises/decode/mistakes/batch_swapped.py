# kind: wrong
# about: returns (per_stream, aggregate): the pair in the wrong order
# expect batch_throughput: wrong /swap|wrong order|revers|other way round/

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = tokens_per_second(param_bytes, bandwidth)
    return per_stream, batch * per_stream
