# kind: wrong
# about: uses the example's 50 ms between tokens instead of the itl argument
# expect request_time: wrong /hard-?coded|ignor|does not (change|depend)|whatever the|fixed/

def request_time(ttft, itl, n_out):
    gap = 0.05  # 50 ms between tokens
    return ttft + (n_out - 1) * gap
