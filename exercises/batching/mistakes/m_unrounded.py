# kind: wrong
# about: returns the number of sequences without rounding
# expect max_batch_for_itl: wrong /unrounded/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    return max(0, spare / per_sequence)
