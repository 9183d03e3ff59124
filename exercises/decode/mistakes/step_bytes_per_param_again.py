# kind: wrong
# about: multiplies by 2 bytes per parameter again, though param_bytes already counts bytes
# expect decode_step_seconds: wrong /factor of (2|two)|twice|two times|\bdoubled?\b|\bhalf\b|counting parameters|parameters (instead of|not|rather than) bytes|forg[oe]t the bytes per param/

BYTES_PER_PARAM = 2

def decode_step_seconds(param_bytes, bandwidth):
    # 16-bit weights
    return param_bytes * BYTES_PER_PARAM / bandwidth
