# kind: correct
# about: named times and an if

def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    compute_time = flops / peak_flops
    memory_time = bytes_moved / bandwidth
    if compute_time > memory_time:
        return compute_time
    return memory_time
