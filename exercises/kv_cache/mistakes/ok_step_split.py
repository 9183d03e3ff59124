# kind: correct
# about: the weights' time plus the cache's time

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    weights = param_bytes / bandwidth
    cache = kv_bytes_per_token * context_len / bandwidth
    return weights + cache
