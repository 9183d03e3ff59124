# kind: correct
# about: the step's bytes named part by part

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    weights = param_bytes  # read once, shared by the batch
    caches = batch * (context_len * kv_bytes_per_token)
    bytes_read = weights + caches
    return bytes_read / bandwidth
