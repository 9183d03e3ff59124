# kind: wrong
# about: rounds the number of sequences to the nearest whole number
# expect max_batch_for_itl: wrong /nearest whole/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    return max(0, round(spare / per_sequence))
