# kind: wrong
# about: answers with the ITL, 32
# expect steady_tokens_per_s: wrong /reciprocal/

steady_tokens_per_s = 32
