# kind: wrong
# about: divides without rounding
# expect max_sequences: wrong /not rounded down|whole number/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return max_tokens(budget_bytes, kv_bytes_per_token) / context_len
