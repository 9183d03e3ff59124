# kind: wrong
# about: divides tokens by the step time instead of multiplying
# expect decode_time: wrong /reciprocal|upside down|invert|flipped|multiply by the (seconds|time|step)|divid(e|es|ing|ed) by the (step|time)/

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens / decode_step_seconds(param_bytes, bandwidth)
