# kind: wrong
# about: times only the arithmetic
# expect step_seconds: wrong /arithmetic time alone/

def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    return flops / peak_flops
