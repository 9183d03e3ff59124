# kind: wrong
# about: multiplies the per-stream rate by the batch too (thinks each stream gets faster)
# expect batch_throughput: wrong /per.?stream|each (stream|sequence|user)|one token per step|second (value|number|element)|not faster|batch times/

def batch_throughput(param_bytes, bandwidth, batch):
    rate = batch * tokens_per_second(param_bytes, bandwidth)
    return (rate, rate)
