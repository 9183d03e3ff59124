# kind: wrong
# about: multiplies tokens by tokens_per_second (a rate, not a time)
# expect decode_time: wrong /reciprocal|upside down|invert|flipped|multiply by the (seconds|time|step)|not by the tokens per second|a rate,? not a time/

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens * tokens_per_second(param_bytes, bandwidth)
