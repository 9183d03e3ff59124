# kind: correct
# about: FLOPs over bytes for a notional model

def decode_intensity(batch, bytes_per_param):
    n = 1e9  # any parameter count: it cancels
    flops = 2 * n * batch
    weight_bytes = n * bytes_per_param
    return flops / weight_bytes
