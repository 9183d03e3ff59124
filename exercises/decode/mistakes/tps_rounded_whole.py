# kind: wrong
# about: rounds to a whole number though one decimal was asked
# expect max_tokens_per_s: wrong /you (rounded|truncated)|rounded (it )?(down )?to (a|the nearest) whole|(drops?|dropped|lost|lose) the decimals?|truncat|int\(\)|cut to a whole|without (a|any) decimals?/

max_tokens_per_s = round({tb_per_s}e12 / ({params_b}e9 * {bytes_per_param}))
