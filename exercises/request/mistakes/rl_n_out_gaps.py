# kind: wrong
# about: n_out gaps of ITL
# expect request_latency: wrong /one gap too many/

def request_latency(ttft, itl, n_out):
    return ttft + n_out * itl
