# kind: wrong
# about: keeps the total at one stream's rate and splits it among the batch
# expect batch_throughput: wrong /split|divid(e|ed|es|ing) (by|among|between)|shared? .{0,30}(among|between)|each (stream|sequence) (still )?(gets|gains)|one token per step/

def batch_throughput(param_bytes, bandwidth, batch):
    total = tokens_per_second(param_bytes, bandwidth)
    return (total, total / batch)
