# kind: correct
# about: request_time with an early return for a single token

def request_time(ttft, itl, n_out):
    if n_out == 1:
        return ttft
    remaining = n_out - 1
    return ttft + remaining * itl
