# kind: wrong
# about: does not round down
# expect max_tokens: wrong /not rounded down/

def max_tokens(budget_bytes, kv_bytes_per_token):
    return budget_bytes / kv_bytes_per_token
