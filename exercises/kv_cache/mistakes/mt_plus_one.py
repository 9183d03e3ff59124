# kind: wrong
# about: adds one to the rounded-down count of tokens
# expect max_tokens: wrong /one token more than fits/

def max_tokens(budget_bytes, kv_bytes_per_token):
    return int(budget_bytes // kv_bytes_per_token) + 1
