# kind: wrong
# about: rounds to the nearest
# expect max_tokens: wrong /nearest/

def max_tokens(budget_bytes, kv_bytes_per_token):
    return round(budget_bytes / kv_bytes_per_token)
