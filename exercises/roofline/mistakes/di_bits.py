# kind: wrong
# about: counts the weights in bits
# expect decode_intensity: wrong /bits/

def decode_intensity(batch, bytes_per_param):
    bits = 8 * bytes_per_param
    return 2 * batch / bits
