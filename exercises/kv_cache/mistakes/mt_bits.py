# kind: wrong
# about: counts bits
# expect max_tokens: wrong /bits/

def max_tokens(budget_bytes, kv_bytes_per_token):
    return int(budget_bytes // (kv_bytes_per_token * 8))
