# kind: wrong
# about: takes the faster of the two times
# expect step_seconds: wrong /smaller of the two times/

def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    return min(flops / peak_flops, bytes_moved / bandwidth)
