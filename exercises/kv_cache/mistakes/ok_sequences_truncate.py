# kind: correct
# about: int() of the quotient of the budget by the bytes per token and the context


def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    return int(budget_bytes / kv_bytes_per_token / context_len)
