# kind: wrong
# about: divides by itl as if it were a rate (tokens per second)
# expect request_time: wrong /reciprocal|upside down|invert|flipped|divid(e|es|ed|ing) by (the )?itl|multiply by (the )?itl|itl is a time|not a rate/

def request_time(ttft, itl, n_out):
    return ttft + (n_out - 1) / itl
