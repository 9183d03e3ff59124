# kind: wrong
# about: multiplies kv_bytes_per_token by the batch but not by the context
# expect batch_step_seconds: wrong /context left out/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    return (param_bytes + batch * kv_bytes_per_token) / bandwidth
