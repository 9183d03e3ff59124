# kind: wrong
# about: rounds the number of sequences up
# expect max_batch_for_itl: wrong /rounds up/

import math

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    return max(0, math.ceil(spare / per_sequence))
