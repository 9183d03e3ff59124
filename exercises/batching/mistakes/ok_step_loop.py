# kind: correct
# about: adds the sequences' caches one by one

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    total = param_bytes
    for _ in range(batch):
        total += kv_bytes_per_token * context_len
    return total / bandwidth
