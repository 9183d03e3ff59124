# kind: wrong
# about: multiplies instead of dividing
# expect ridge_point: wrong /division/

def ridge_point(peak_flops, bandwidth):
    return peak_flops * bandwidth
