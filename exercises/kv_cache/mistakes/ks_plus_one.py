# kind: wrong
# about: one position too many
# expect kv_step_seconds: wrong /one position too many/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token * (context_len + 1)) / bandwidth
