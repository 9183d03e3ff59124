# kind: wrong
# about: milliseconds
# expect kv_step_seconds: wrong /milliseconds/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth * 1000
