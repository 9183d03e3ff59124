# kind: wrong
# about: turns the bandwidth into bits per second
# expect ridge_point: wrong /\bbits\b/

def ridge_point(peak_flops, bandwidth):
    return peak_flops / (bandwidth * 8)
