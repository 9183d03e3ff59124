# kind: correct
# about: decode_time adding one step per token with math.fsum

import math

def decode_time(n_tokens, param_bytes, bandwidth):
    step = decode_step_seconds(param_bytes, bandwidth)
    return math.fsum(step for _ in range(n_tokens))
