# kind: wrong
# about: calls request_latency in output_rate's own argument order
# expect output_rate: wrong /another order/

def output_rate(n_out, ttft, itl):
    return n_out / request_latency(n_out, ttft, itl)
