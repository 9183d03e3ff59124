# kind: wrong
# about: divides bandwidth by bytes (upside down)
# expect decode_step_seconds: wrong /reciprocal|upside down|invert|flipped/

def decode_step_seconds(param_bytes, bandwidth):
    return bandwidth / param_bytes
