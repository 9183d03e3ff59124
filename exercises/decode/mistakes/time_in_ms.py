# kind: wrong
# about: returns milliseconds
# expect decode_time: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds/

def decode_time(n_tokens, param_bytes, bandwidth):
    return n_tokens * decode_step_seconds(param_bytes, bandwidth) * 1e3
