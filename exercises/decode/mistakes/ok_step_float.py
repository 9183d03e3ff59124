# kind: correct
# about: decode_step_seconds with explicit float conversion and an intermediate variable

def decode_step_seconds(param_bytes, bandwidth):
    seconds = float(param_bytes) / float(bandwidth)
    return seconds
