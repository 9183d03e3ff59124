# kind: wrong
# about: rounds to a whole number
# expect request_tokens_per_s: wrong /rounded too far|at least 1 decimal/

request_tokens_per_s = 24
