# kind: wrong
# about: multiplies by the context
# expect max_sequences: wrong /multiplied in|divide by it/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return max_tokens(budget_bytes, kv_bytes_per_token) * context_len
