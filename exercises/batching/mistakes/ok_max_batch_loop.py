# kind: correct
# about: counts up with batch_step_seconds while the next batch still meets the target

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    batch = 0
    while batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch + 1, bandwidth) <= itl_target:
        batch += 1
    return batch
