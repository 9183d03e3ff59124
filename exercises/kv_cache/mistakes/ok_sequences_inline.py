# kind: correct
# about: one floor division by a sequence's bytes, without calling max_tokens

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    per_sequence = kv_bytes_per_token * context_len
    return int(budget_bytes // per_sequence)
