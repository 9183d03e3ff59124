# kind: wrong
# about: copies the worked example's 71.4 tokens/s instead of working out this model's
# expect max_tokens_per_s: wrong /worked example/

max_tokens_per_s = 71.4
