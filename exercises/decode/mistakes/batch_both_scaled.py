# kind: wrong
# about: multiplies the per-stream rate by the batch too (thinks each stream gets faster)
# expect batch_throughput: wrong /multiplied by the batch too|each (stream|sequence|user) (still )?(gets|gains)|one token per step|not (make .* )?faster|should not be multiplied/

def batch_throughput(param_bytes, bandwidth, batch):
    rate = batch * tokens_per_second(param_bytes, bandwidth)
    return (rate, rate)
