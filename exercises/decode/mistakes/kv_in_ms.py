# kind: wrong
# about: returns milliseconds like the worked example (14.5 ms)
# expect kv_step_seconds: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds/

def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    total = param_bytes + kv_bytes_per_token * context_len
    return 1000 * total / bandwidth
