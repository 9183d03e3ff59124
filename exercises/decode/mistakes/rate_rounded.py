# kind: wrong
# about: rounds the rate to one decimal, as Part 1 asked, but inside the function
# expect tokens_per_second: wrong /round|decimal|precis|truncat|cut to|whole number/

def tokens_per_second(param_bytes, bandwidth):
    return round(1 / decode_step_seconds(param_bytes, bandwidth), 1)
