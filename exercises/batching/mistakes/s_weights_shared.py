# kind: wrong
# about: gives each user their share of the weights plus their own cache
# expect batch_step_seconds: wrong /share/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    per_user = param_bytes / batch + context_len * kv_bytes_per_token
    return per_user / bandwidth
