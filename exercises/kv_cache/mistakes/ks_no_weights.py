# kind: wrong
# about: the cache only
# expect kv_step_seconds: wrong /weights left out/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return kv_bytes_per_token * context_len / bandwidth
