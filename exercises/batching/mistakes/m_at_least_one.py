# kind: wrong
# about: always allows at least one sequence
# expect max_batch_for_itl: wrong /returns 1 when/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    return max(1, int(spare // per_sequence))  # a server always serves someone
