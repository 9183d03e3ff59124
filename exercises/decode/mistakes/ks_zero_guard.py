# kind: wrong
# about: an empty cache guarded with return 0.0, as if nothing were read
# expect kv_step_seconds: wrong /guard|returns 0/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    if context_len == 0:
        return 0.0
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth
