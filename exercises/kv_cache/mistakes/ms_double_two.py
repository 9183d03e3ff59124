# kind: wrong
# about: doubles the bytes per token again
# expect max_sequences: wrong /factor 2 counted again/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    per_sequence = 2 * kv_bytes_per_token * context_len
    return int(budget_bytes // per_sequence)
