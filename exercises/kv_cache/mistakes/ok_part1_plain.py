# kind: correct
# about: Part 1 typed as plain numbers

token_bytes = 131072
budget_gb = 56.0
sequences_fit = 52
even_context = 122070
