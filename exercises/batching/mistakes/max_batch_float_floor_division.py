# kind: wrong
# about: float floor division, returned as a float (the docstring asks for an int: one rule for every lesson's counts)
# expect max_batch_for_itl: wrong /but a float/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    if spare <= 0:
        return 0
    return spare // per_sequence
