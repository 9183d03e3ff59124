# kind: wrong
# about: rounds to a whole number (258) though one decimal was asked
# expect max_tokens_per_s: wrong /you (rounded|truncated)|rounded (it )?(down )?to (a|the nearest) whole|(drops?|dropped|lost|lose) the decimals?|truncat|int\(\)|cut to a whole|without (a|any) decimals?/

max_tokens_per_s = round(3.35e12 / 13e9)
