# kind: correct
# about: kv_step_seconds as weight time plus cache time

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    weights_time = param_bytes / bandwidth
    cache_time = kv_bytes_per_token * context_len / bandwidth
    return weights_time + cache_time
