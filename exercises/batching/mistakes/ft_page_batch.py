# kind: wrong
# about: the page's batch of 64 written in for the tokens per step
# expect fleet_tokens_per_s: wrong /ignored|in place of `batch`|same answer/

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    return 64 / batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth)
