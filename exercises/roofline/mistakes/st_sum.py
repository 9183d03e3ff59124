# kind: wrong
# about: adds the compute time and the memory time
# expect step_seconds: wrong /sum of the two times/

def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    return flops / peak_flops + bytes_moved / bandwidth
