# kind: wrong
# about: writes the 8,192-token context in instead of using context_len
# expect max_sequences: wrong /8,192 written in/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return max_tokens(budget_bytes, kv_bytes_per_token) // 8192
