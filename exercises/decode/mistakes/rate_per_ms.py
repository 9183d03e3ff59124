# kind: wrong
# about: 1000 / step time, mixing up ms and s as in Part 1
# expect tokens_per_second: wrong /thousand|1,?000 ?(times|x)|factor of (1,?000|a thousand)|in milliseconds|milliseconds? (instead of|not|rather than) (in )?seconds|seconds,? not (in )?milli|in seconds/

def tokens_per_second(param_bytes, bandwidth):
    step = decode_step_seconds(param_bytes, bandwidth)
    return 1000 / step
