# kind: wrong
# about: returns milliseconds
# expect step_seconds: wrong /milliseconds/

def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    compute_ms = flops / peak_flops * 1000
    memory_ms = bytes_moved / bandwidth * 1000
    return max(compute_ms, memory_ms)
