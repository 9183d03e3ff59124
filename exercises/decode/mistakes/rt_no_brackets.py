# kind: wrong
# about: ttft + n_out - 1 * itl, the brackets left out
# expect request_time: wrong /bracket/

def request_time(ttft, itl, n_out):
    return ttft + n_out - 1 * itl
