# kind: correct
# about: batch_throughput using 1 / decode_step_seconds for the per-stream rate

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = 1 / decode_step_seconds(param_bytes, bandwidth)
    aggregate = batch * per_stream
    return aggregate, per_stream
