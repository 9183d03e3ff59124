# kind: wrong
# about: takes the 10% reserve again
# expect max_tokens: wrong /reserve taken again/

def max_tokens(budget_bytes, kv_bytes_per_token):
    return int(0.9 * budget_bytes // kv_bytes_per_token)
