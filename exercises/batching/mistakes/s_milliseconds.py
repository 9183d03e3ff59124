# kind: wrong
# about: returns the step time in milliseconds
# expect batch_step_seconds: wrong /1000|milli/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    seconds = (param_bytes + batch * context_len * kv_bytes_per_token) / bandwidth
    return seconds * 1000  # ms
