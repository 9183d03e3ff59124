# kind: wrong
# about: takes the reserve again
# expect max_sequences: wrong /reserve taken again/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    usable = 0.9 * budget_bytes
    return int(usable // (kv_bytes_per_token * context_len))
