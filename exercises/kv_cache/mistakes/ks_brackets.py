# kind: wrong
# about: divides only the KV bytes
# expect kv_step_seconds: wrong /brackets/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return param_bytes + kv_bytes_per_token * context_len / bandwidth
