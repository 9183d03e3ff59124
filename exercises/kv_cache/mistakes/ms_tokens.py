# kind: wrong
# about: returns the tokens that fit
# expect max_sequences: wrong /the tokens that fit, not the sequences/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return max_tokens(budget_bytes, kv_bytes_per_token)
