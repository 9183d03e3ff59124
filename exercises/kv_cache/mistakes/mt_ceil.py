# kind: wrong
# about: rounds up
# expect max_tokens: wrong /rounded up/

def max_tokens(budget_bytes, kv_bytes_per_token):
    import math
    return math.ceil(budget_bytes / kv_bytes_per_token)
