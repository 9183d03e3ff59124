# kind: wrong
# about: returns milliseconds (x 1000) because Part 1 asked for ms
# expect decode_step_seconds: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds/

def decode_step_seconds(param_bytes, bandwidth):
    seconds = param_bytes / bandwidth
    ms = seconds * 1000
    return ms
