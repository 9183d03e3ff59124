# kind: wrong
# about: answers with the ITL, {itl_ms}
# expect steady_tokens_per_s: wrong /ITL itself|time per token/

steady_tokens_per_s = {itl_ms}
