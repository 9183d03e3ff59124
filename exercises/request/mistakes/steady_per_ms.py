# kind: wrong
# about: 1 / {itl_ms} with the gap in ms
# expect steady_tokens_per_s: wrong /millisecond/

steady_tokens_per_s = 1 / {itl_ms}
