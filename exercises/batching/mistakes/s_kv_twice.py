# kind: wrong
# about: multiplies by 2 for K and V although kv_bytes_per_token already counts both
# expect batch_step_seconds: wrong /K and V counted again/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    kv = 2 * kv_bytes_per_token * context_len * batch  # keys and values
    return (param_bytes + kv) / bandwidth
