# kind: correct
# about: math.floor of the quotient

import math

def max_tokens(budget_bytes, kv_bytes_per_token):
    return math.floor(budget_bytes / kv_bytes_per_token)
