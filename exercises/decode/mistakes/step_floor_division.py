# kind: wrong
# about: uses // (floor division), which throws away the fraction of a second
# expect decode_step_seconds: wrong /floor|//|integer division|rounds? down|whole number|truncat/

def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes // bandwidth
