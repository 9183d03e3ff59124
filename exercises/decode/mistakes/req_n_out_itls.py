# kind: wrong
# about: counts n_out inter-token gaps instead of n_out - 1
# expect request_time: wrong /off[- ]by[- ]one|one (itl|gap|step|token) too many|token too many|n_out (gaps|itls|steps)|extra (itl|gap)/

def request_time(ttft, itl, n_out):
    return ttft + n_out * itl
