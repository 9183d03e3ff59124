# kind: wrong
# about: writes the page's 20 ms target in instead of itl_target
# expect max_batch_for_itl: wrong /ignored|in place of `itl_target`/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = 0.020 * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    if spare < per_sequence:
        return 0
    return int(spare // per_sequence)
