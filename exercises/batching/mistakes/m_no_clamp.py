# kind: wrong
# about: floors the formula but never clamps at 0
# expect max_batch_for_itl: wrong /negative batch/

import math

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    spare = itl_target * bandwidth - param_bytes
    per_sequence = context_len * kv_bytes_per_token
    return math.floor(spare / per_sequence)
