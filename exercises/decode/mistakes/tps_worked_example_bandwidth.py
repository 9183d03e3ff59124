# kind: wrong
# about: works the tokens per second at the worked example's 1 TB/s
# expect max_tokens_per_s: wrong /1 TB\/s|another one/

max_tokens_per_s = 1e12 / ({params_b}e9 * {bytes_per_param})
