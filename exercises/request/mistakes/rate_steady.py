# kind: wrong
# about: uses 1 / ITL for the request's rate
# expect request_tokens_per_s: wrong /steady decode rate/

request_tokens_per_s = 1000 / {itl_ms}
