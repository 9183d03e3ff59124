# kind: correct
# about: converts both to float first

def ridge_point(peak_flops, bandwidth):
    flops = float(peak_flops)
    bytes_per_s = float(bandwidth)
    return flops / bytes_per_s
