# kind: wrong
# about: rounds to a whole number
# expect request_tokens_per_s: wrong /rounded too far|at least 1 decimal/

request_tokens_per_s = round({n_out} / ({ttft_s} + ({n_out} - 1) * {itl_ms} / 1000))
