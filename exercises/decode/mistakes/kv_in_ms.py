# kind: wrong
# about: returns milliseconds like the worked example (14.5 ms)
# expect kv_step_seconds: wrong /1000|thousand|milli/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    total = param_bytes + kv_bytes_per_token * context_len
    return 1000 * total / bandwidth
