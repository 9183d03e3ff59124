# kind: wrong
# about: adds the ITL in milliseconds to the TTFT in seconds, in the output rate
# expect request_tokens_per_s: wrong /used in milliseconds/

request_tokens_per_s = {n_out} / ({ttft_s} + ({n_out} - 1) * {itl_ms})
