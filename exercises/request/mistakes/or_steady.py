# kind: wrong
# about: returns 1 / itl
# expect output_rate: wrong /steady decode rate/

def output_rate(n_out, ttft, itl):
    return 1 / itl
