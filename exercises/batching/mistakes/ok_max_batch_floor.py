# kind: correct
# about: math.floor, clamped at 0

import math

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    fits = (itl_target * bandwidth - param_bytes) / (context_len * kv_bytes_per_token)
    return max(0, math.floor(fits))
