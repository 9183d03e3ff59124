# kind: wrong
# about: reads the weights once for every sequence of the batch
# expect batch_step_seconds: wrong /once per sequence|shares one read/

def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    one_sequence = param_bytes + context_len * kv_bytes_per_token  # weights and its own cache
    return batch * one_sequence / bandwidth
