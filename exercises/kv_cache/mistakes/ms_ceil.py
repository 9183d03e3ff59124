# kind: wrong
# about: rounds up
# expect max_sequences: wrong /rounded up/

def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    import math
    return math.ceil(budget_bytes / kv_bytes_per_token / context_len)
