# kind: wrong
# about: ignores the KV cache: only the weights are read
# expect kv_step_seconds: wrong /kv|cache|context_len|ignores?/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return decode_step_seconds(param_bytes, bandwidth)
