# kind: wrong
# about: int(...) chops the decimals off: 71
# expect max_tokens_per_s: wrong /decimal|round|precis|whole number|int|truncat/

max_tokens_per_s = int(1000 / 14)
