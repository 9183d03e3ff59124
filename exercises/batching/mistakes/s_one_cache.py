# kind: wrong
# about: keeps lesson 3's kv_step_seconds: one sequence's cache, whatever the batch
# expect batch_step_seconds: wrong /one sequence's cache only/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth
