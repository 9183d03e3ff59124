# kind: wrong
# about: rounds the step time to 3 decimals (ms precision) too early
# expect decode_step_seconds: wrong /round|decimal|precis|truncat|cut to|whole number/

def decode_step_seconds(param_bytes, bandwidth):
    return round(param_bytes / bandwidth, 3)
