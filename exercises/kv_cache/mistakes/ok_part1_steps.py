# kind: correct
# about: Part 1 worked step by step with named values, rounded to 3 significant figures where allowed

per_token = 2 * 32 * 8 * 128 * 2
token_bytes = per_token
weights = 8.0e9 * 2
budget = 80e9 * 0.9 - weights
budget_gb = budget / 1e9
sequences_fit = int(budget // (per_token * 8192))
even_context = 1.22e5  # weights / per_token, rounded
