# kind: wrong
# about: types the worked example's gap, 0.01 s, instead of using the itl argument
# expect request_latency: wrong /ignores its .itl. argument/

def request_latency(ttft, itl, n_out):
    return ttft + (n_out - 1) * 0.01
