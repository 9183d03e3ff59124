# kind: wrong
# about: adds one to the rounded-down count
# expect max_sequences: wrong /one sequence more than fits/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return max_tokens(budget_bytes, kv_bytes_per_token) // context_len + 1
