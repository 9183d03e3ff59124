# kind: wrong
# about: bandwidth over FLOP/s: bytes per FLOP, upside down
# expect ridge_point: wrong /reciprocal|upside down|invert|flipped/

def ridge_point(peak_flops, bandwidth):
    return bandwidth / peak_flops
