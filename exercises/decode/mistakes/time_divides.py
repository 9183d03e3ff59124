# kind: wrong
# about: divides tokens by the step time instead of multiplying
# expect decode_time: wrong /reciprocal|upside down|invert|divid|multiply/

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens / decode_step_seconds(param_bytes, bandwidth)
