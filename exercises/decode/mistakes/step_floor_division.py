# kind: wrong
# about: uses // (floor division), which throws away the fraction of a second
# expect decode_step_seconds: wrong /floor|\/\/|integer|round|whole|truncat|fraction/

def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes // bandwidth
