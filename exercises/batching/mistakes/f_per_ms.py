# kind: wrong
# about: divides by the step time in milliseconds
# expect fleet_tokens_per_s: wrong /1000|milli/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    ms = batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth) * 1000
    return batch / ms
