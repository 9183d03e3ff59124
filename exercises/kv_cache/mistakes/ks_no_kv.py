# kind: wrong
# about: the weights only
# expect kv_step_seconds: wrong /KV cache left out/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return param_bytes / bandwidth
