# kind: wrong
# about: bandwidth / peak
# expect ridge_point: wrong /upside down|bytes per FLOP/

def ridge_point(peak_flops, bandwidth):
    return bandwidth / peak_flops
