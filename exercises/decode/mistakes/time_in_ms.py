# kind: wrong
# about: returns milliseconds
# expect decode_time: wrong /1000|thousand|milli/

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens * decode_step_seconds(param_bytes, bandwidth) * 1e3
