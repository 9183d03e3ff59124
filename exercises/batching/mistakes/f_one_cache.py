# kind: wrong
# about: rewrites the step with one sequence's cache only
# expect fleet_tokens_per_s: wrong /one sequence's cache only/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    step = (param_bytes + kv_bytes_per_token * context_len) / bandwidth
    return batch / step
