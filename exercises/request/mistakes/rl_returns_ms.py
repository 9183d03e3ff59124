# kind: wrong
# about: returns milliseconds
# expect request_latency: wrong /milliseconds/

def request_latency(ttft, itl, n_out):
    return (ttft + (n_out - 1) * itl) * 1000
