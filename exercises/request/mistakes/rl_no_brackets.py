# kind: wrong
# about: ttft + n_out - 1 * itl: the brackets round n_out - 1 left out
# expect request_latency: wrong /bracket/

def request_latency(ttft, itl, n_out):
    return ttft + n_out - 1 * itl
