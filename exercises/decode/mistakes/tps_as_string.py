# kind: wrong
# about: types the answer as a string
# expect max_tokens_per_s: wrong /string/

max_tokens_per_s = "71.4"
