# kind: wrong
# about: rounds 31.25 to 31
# expect steady_tokens_per_s: wrong /rounded|whole number/

steady_tokens_per_s = 31
