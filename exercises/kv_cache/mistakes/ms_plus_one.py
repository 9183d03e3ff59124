# kind: wrong
# about: counts context_len + 1 positions per sequence
# expect max_sequences: wrong /one token too many/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return int(budget_bytes // (kv_bytes_per_token * (context_len + 1)))
