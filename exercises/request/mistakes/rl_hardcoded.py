# kind: wrong
# about: returns the worked example's 5.49
# expect request_latency: wrong /same answer whatever|hard-coded/

def request_latency(ttft, itl, n_out):
    return 5.49
