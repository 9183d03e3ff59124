# kind: wrong
# about: returns the first batch that misses the target
# expect max_batch_for_itl: wrong /one too many|first batch that misses/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    batch = 1
    while batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth) <= itl_target:
        batch += 1
    return batch
