# kind: wrong
# about: times only the memory traffic, as for decode
# expect step_seconds: wrong /memory time alone/

def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    return bytes_moved / bandwidth
