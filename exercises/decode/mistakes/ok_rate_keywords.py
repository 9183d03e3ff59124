# kind: correct
# about: tokens_per_second calling decode_step_seconds with keyword arguments, 1.0 / step

def tokens_per_second(param_bytes, bandwidth):
    step = decode_step_seconds(param_bytes=param_bytes, bandwidth=bandwidth)
    return 1.0 / step
