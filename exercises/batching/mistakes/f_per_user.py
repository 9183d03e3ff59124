# kind: wrong
# about: returns one user's rate, 1 / step time
# expect fleet_tokens_per_s: wrong /one user's rate/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    return 1 / batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth)
