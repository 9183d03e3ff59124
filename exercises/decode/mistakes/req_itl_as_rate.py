# kind: wrong
# about: divides by itl as if it were a rate (tokens per second)
# expect request_time: wrong /reciprocal|upside down|invert|divid|multiply|rate/

def request_time(ttft, itl, n_out):
    return ttft + (n_out - 1) / itl
