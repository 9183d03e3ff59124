# kind: wrong
# about: keeps Decode's first model: only the weights are read
# expect batch_step_seconds: wrong /caches left out/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    # the weights are read once per step and shared by the batch
    return param_bytes / bandwidth
