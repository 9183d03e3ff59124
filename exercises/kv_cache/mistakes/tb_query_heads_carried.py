# kind: wrong
# about: uses the {n_heads} query heads for the bytes per token, and works the rest of Part 1 from that number
# expect token_bytes: wrong /query heads give/

token_bytes = 2 * {n_layers} * {n_heads} * {head_dim} * 2  # the slip: query heads, not KV heads
budget_gb = {memory_gb} * 0.9 - {params_b} * 2
sequences_fit = int(budget_gb * 1e9 // (token_bytes * {context}))  # right from the learner's own token_bytes
even_context = {params_b}e9 * 2 / token_bytes  # right from the learner's own token_bytes
