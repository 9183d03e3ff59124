# kind: correct
# about: batch_throughput building the tuple with tuple([...]) after naming both rates

def batch_throughput(param_bytes, bandwidth, batch):
    one = tokens_per_second(param_bytes, bandwidth)
    return tuple([one * batch, one])
