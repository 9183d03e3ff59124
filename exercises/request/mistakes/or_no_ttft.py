# kind: wrong
# about: divides by the decode time only
# expect output_rate: wrong /TTFT is left out/

def output_rate(n_out, ttft, itl):
    return n_out / ((n_out - 1) * itl)
