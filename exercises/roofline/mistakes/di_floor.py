# kind: wrong
# about: uses // so the intensity comes out whole
# expect decode_intensity: wrong /rounds down|`\/\/`/

def decode_intensity(batch, bytes_per_param):
    return 2 * batch // bytes_per_param
