# kind: wrong
# about: counts n_out - 2 gaps in the output rate's latency
# expect request_tokens_per_s: wrong /gap too few/

request_tokens_per_s = {n_out} / ({ttft_s} + ({n_out} - 2) * {itl_ms} / 1000)
