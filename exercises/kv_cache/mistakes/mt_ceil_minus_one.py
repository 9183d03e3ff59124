# kind: wrong
# about: the tokens strictly below the budget: ceil - 1
# expect max_tokens: wrong /ceil - 1|exact fit/

import math

def max_tokens(budget_bytes, kv_bytes_per_token):
    return math.ceil(budget_bytes / kv_bytes_per_token) - 1
