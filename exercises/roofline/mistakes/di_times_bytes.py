# kind: wrong
# about: multiplies by the bytes per parameter
# expect decode_intensity: wrong /multiplying by the bytes|denominator/

def decode_intensity(batch, bytes_per_param):
    return 2 * batch * bytes_per_param
