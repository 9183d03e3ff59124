# kind: wrong
# about: only the gaps
# expect request_latency: wrong /TTFT is missing/

def request_latency(ttft, itl, n_out):
    return (n_out - 1) * itl
