# kind: wrong
# about: treats param_bytes as a parameter count and multiplies by 2 bytes again
# expect tokens_per_second: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|counting parameters|parameters (instead of|not|rather than) bytes|forg[oe]t the bytes per param/

def tokens_per_second(param_bytes, bandwidth):
    return 1 / decode_step_seconds(2 * param_bytes, bandwidth)
