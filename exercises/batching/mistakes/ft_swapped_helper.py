# kind: wrong
# about: calls batch_step_seconds with the weights and the per-token cache in each other's places
# expect fleet_tokens_per_s: wrong /swapped|other's place/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    step = batch_step_seconds(kv_bytes_per_token, param_bytes, context_len, batch, bandwidth)
    return batch / step
