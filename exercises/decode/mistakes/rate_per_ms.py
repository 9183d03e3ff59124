# kind: wrong
# about: 1000 / step time, mixing up ms and s as in Part 1
# expect tokens_per_second: wrong /1000|thousand|milli/

def tokens_per_second(param_bytes, bandwidth):
    step = decode_step_seconds(param_bytes, bandwidth)
    return 1000 / step
