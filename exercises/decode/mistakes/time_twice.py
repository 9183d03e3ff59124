# kind: wrong
# about: counts two steps per token
# expect decode_time: wrong /factor of 2/

def decode_time(n_tokens, param_bytes, bandwidth):
    return 2 * n_tokens * decode_step_seconds(param_bytes, bandwidth)
