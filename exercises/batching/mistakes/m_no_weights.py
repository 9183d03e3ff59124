# kind: wrong
# about: divides the whole step budget by one sequence's cache, forgetting the weights
# expect max_batch_for_itl: wrong /leaves out the weights/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    budget = itl_target * bandwidth
    return int(budget // (context_len * kv_bytes_per_token))
