# kind: wrong
# about: a loop that returns the first batch that misses the target (blind TA's f_mb_loop_off)
# expect max_batch_for_itl: wrong /first batch that misses the target returns that batch/

def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    b = 0
    while param_bytes + b * context_len * kv_bytes_per_token <= itl_target * bandwidth:
        b += 1
    return b
