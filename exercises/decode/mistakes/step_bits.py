# kind: wrong
# about: converts bytes to bits (x 8) before dividing by a bandwidth in bytes/s
# expect decode_step_seconds: wrong /factor of (8|eight)|\b8 times|eight times|\bbits?\b/

def decode_step_seconds(param_bytes, bandwidth):
    bits = param_bytes * 8
    return bits / bandwidth
