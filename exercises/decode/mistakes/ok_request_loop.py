# kind: correct
# about: request_time adding one itl per later token in a loop

def request_time(ttft, itl, n_out):
    t = ttft
    for _ in range(n_out - 1):
        t += itl
    return t
