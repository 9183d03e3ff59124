# kind: wrong
# about: counts up while the step is strictly shorter than the target
# expect max_batch_for_itl: wrong /`<`/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    batch = 0
    while batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch + 1, bandwidth) < itl_target:
        batch += 1
    return batch
