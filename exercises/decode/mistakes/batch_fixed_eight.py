# kind: wrong
# about: multiplies by the example's batch of 8 instead of the batch argument
# expect batch_throughput: wrong /hard-?coded|ignor|the batch (it is|you are|was) given|fixed|whatever the batch|does not (change|depend)/

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = tokens_per_second(param_bytes, bandwidth)
    return 8 * per_stream, per_stream
