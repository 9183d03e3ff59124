# kind: wrong
# about: answers with the ITL, {itl_ms}
# expect steady_tokens_per_s: wrong /reciprocal/

steady_tokens_per_s = {itl_ms}
