# kind: wrong
# about: one position of cache
# expect kv_step_seconds: wrong /one position of KV/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token) / bandwidth
