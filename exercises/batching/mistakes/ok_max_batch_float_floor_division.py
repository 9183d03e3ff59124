# kind: correct
# about: float floor division, returned as a float

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    if spare <= 0:
        return 0
    return spare // per_sequence
