# kind: wrong
# about: multiplies by 2 for K and V again
# expect max_tokens: wrong /factor 2 counted again/

def max_tokens(budget_bytes, kv_bytes_per_token):
    return int(budget_bytes // (2 * kv_bytes_per_token))
