# kind: wrong
# about: returns the request's tokens/s (n_out / time), as in the worked example's 12.5
# expect request_time: wrong /reciprocal|upside down|invert|flipped|a rate|tokens per second|tokens/s/

def request_time(ttft, itl, n_out):
    total = ttft + (n_out - 1) * itl
    return n_out / total
