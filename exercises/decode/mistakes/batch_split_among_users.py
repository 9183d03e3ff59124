# kind: wrong
# about: keeps the total at one stream's rate and splits it among the batch
# expect batch_throughput: wrong /split|divid|share|batch times|each (stream|sequence) (still )?gets|one token per step|aggregate|total/

def batch_throughput(param_bytes, bandwidth, batch):
    total = tokens_per_second(param_bytes, bandwidth)
    return (total, total / batch)
