# kind: correct
# about: decode_time as n_tokens / tokens_per_second (mathematically the same)

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens / tokens_per_second(param_bytes, bandwidth)
