# kind: wrong
# about: divides 59 tokens by T
# expect request_tokens_per_s: wrong /n_out - 1 tokens|all n_out/

request_tokens_per_s = 59 / 2.488
