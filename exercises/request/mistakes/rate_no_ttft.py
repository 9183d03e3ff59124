# kind: wrong
# about: leaves the TTFT out of the time
# expect request_tokens_per_s: wrong /TTFT is left out/

request_tokens_per_s = {n_out} / (({n_out} - 1) * {itl_ms} / 1000)
