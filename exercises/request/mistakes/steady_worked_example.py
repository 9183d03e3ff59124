# kind: wrong
# about: copies the worked example's steady rate, 1 / 0.010 s
# expect steady_tokens_per_s: wrong /worked example/

steady_tokens_per_s = 100
