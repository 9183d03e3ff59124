# kind: wrong
# about: thinks kv_bytes_per_token is in MB (the text says 0.5 MB) and multiplies by 1e6
# expect kv_step_seconds: wrong /1e6|million|megabyte|already in bytes|\bMB\b/

MB = 1e6

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    kv_bytes = kv_bytes_per_token * MB * context_len
    return (param_bytes + kv_bytes) / bandwidth
