# kind: wrong
# about: charges the TTFT to every token
# expect request_latency: wrong /every token|paid once/

def request_latency(ttft, itl, n_out):
    total = 0
    for _ in range(n_out):
        total += ttft
    return total + (n_out - 1) * itl
