# kind: wrong
# about: returns None when no batch meets the target
# expect max_batch_for_itl: wrong /not None/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    if spare < per_sequence:
        return None  # nothing fits
    return int(spare // per_sequence)
