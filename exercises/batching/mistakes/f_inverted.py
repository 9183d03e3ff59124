# kind: wrong
# about: divides the step time by the batch (seconds per token)
# expect fleet_tokens_per_s: wrong /upside down/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    return batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth) / batch
