# kind: correct
# about: one user's rate times the batch

def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    per_user = 1 / batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth)
    return batch * per_user
