# kind: wrong
# about: bandwidth in bits
# expect kv_step_seconds: wrong /bits/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token * context_len) / (bandwidth * 8)
