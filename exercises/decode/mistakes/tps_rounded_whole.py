# kind: wrong
# about: rounds to a whole number (71) though one decimal was asked
# expect max_tokens_per_s: wrong /round|decimal|precis|truncat|cut to|whole number/

max_tokens_per_s = round(1000 / 14)
