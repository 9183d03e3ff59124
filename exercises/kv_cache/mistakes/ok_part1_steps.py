# kind: correct
# about: Part 1 worked step by step with named values, rounded to 3 significant figures where allowed

per_token = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2
token_bytes = per_token
weights = {params_b}e9 * 2
budget = {memory_gb}e9 * 0.9 - weights
budget_gb = budget / 1e9
sequences_fit = int(budget // (per_token * {context}))
even_context = float(f"{weights / per_token:.3g}")  # weights / per_token, 3 significant figures
