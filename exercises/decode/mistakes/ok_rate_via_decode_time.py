# kind: correct
# about: tokens_per_second as 1 / decode_time(1, ...): the time of one token

def tokens_per_second(param_bytes, bandwidth):
    return 1 / decode_time(1, param_bytes, bandwidth)
