# kind: wrong
# about: multiplies tokens by tokens_per_second (a rate, not a time)
# expect decode_time: wrong /reciprocal|upside down|invert|rate|tokens per second|divid/

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens * tokens_per_second(param_bytes, bandwidth)
