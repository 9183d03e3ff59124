# kind: correct
# about: special-cases a single token

def request_latency(ttft, itl, n_out):
    if n_out == 1:
        return ttft
    gaps = n_out - 1
    return ttft + gaps * itl
