# kind: wrong
# about: converts FLOP/s to TFLOP/s but leaves the bandwidth in bytes/s
# expect ridge_point: wrong /10\^12|1e12|10\*\*12|trillion|tera/

def ridge_point(peak_flops, bandwidth):
    tflops = peak_flops / 1e12
    return tflops / bandwidth
