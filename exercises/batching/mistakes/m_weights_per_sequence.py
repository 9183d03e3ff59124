# kind: wrong
# about: charges the weights to every sequence
# expect max_batch_for_itl: wrong /charges the weights/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    per_sequence = param_bytes + context_len * kv_bytes_per_token
    return int(itl_target * bandwidth // per_sequence)
