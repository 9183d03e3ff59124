# kind: wrong
# about: int(...) chops the decimals off: 71
# expect max_tokens_per_s: wrong /round|decimal|precis|truncat|cut to|whole number|int\(/

max_tokens_per_s = int(1000 / 14)
