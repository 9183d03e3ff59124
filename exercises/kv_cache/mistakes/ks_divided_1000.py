# kind: wrong
# about: divides by 1,000 once too often
# expect kv_step_seconds: wrong /divide by 1,000/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth / 1e3
