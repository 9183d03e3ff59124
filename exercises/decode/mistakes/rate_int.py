# kind: wrong
# about: int() of the rate: whole tokens only
# expect tokens_per_second: wrong /round|decimal|precis|truncat|cut to|whole number|int\(/

def tokens_per_second(param_bytes, bandwidth):
    # you can't make half a token
    return int(1 / decode_step_seconds(param_bytes, bandwidth))
