# kind: correct
# about: the fleet rate with the step written out

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    return batch * bandwidth / (param_bytes + batch * context_len * kv_bytes_per_token)
