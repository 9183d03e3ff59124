# kind: correct
# about: kv_decode_time with math.fsum over a generator of step times

import math

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    return math.fsum(
        kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth)
        for k in range(n_tokens)
    )
