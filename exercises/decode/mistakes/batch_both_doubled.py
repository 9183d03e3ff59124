# kind: wrong
# about: counts 2 bytes per parameter on top of param_bytes, so both rates come out half as big
# expect batch_throughput: wrong /factor of 2|half|twice|halved/

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = bandwidth / (2 * param_bytes)
    return batch * per_stream, per_stream
