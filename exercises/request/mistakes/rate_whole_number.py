# kind: wrong
# about: rounds to a whole number
# expect request_tokens_per_s: wrong /close|rounded/

request_tokens_per_s = 24
