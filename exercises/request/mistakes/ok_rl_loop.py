# kind: correct
# about: adds the gaps one by one in a loop

def request_latency(ttft, itl, n_out):
    t = ttft
    for _ in range(1, n_out):
        t = t + itl
    return t
