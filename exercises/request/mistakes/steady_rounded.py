# kind: wrong
# about: rounds 1000 / {itl_ms} to a whole number
# expect steady_tokens_per_s: wrong /rounded|whole number/

steady_tokens_per_s = round(1000 / {itl_ms})
