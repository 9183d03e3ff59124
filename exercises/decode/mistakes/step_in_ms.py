# kind: wrong
# about: returns milliseconds (x 1000) because Part 1 asked for ms
# expect decode_step_seconds: wrong /1000|thousand|milli/

def decode_step_seconds(param_bytes, bandwidth):
    seconds = param_bytes / bandwidth
    ms = seconds * 1000
    return ms
