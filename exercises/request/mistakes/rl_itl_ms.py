# kind: wrong
# about: assumes the ITL is given in ms and converts it
# expect request_latency: wrong /as if it were in milliseconds/

def request_latency(ttft, itl, n_out):
    itl_s = itl / 1000  # ITL is usually quoted in ms
    return ttft + (n_out - 1) * itl_s
