# kind: wrong
# about: rounds to the nearest
# expect max_sequences: wrong /nearest/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return round(budget_bytes / (kv_bytes_per_token * context_len))
