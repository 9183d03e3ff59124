# kind: wrong
# about: gives the request's output rate instead
# expect steady_tokens_per_s: wrong /output rate|TTFT/

steady_tokens_per_s = {n_out} / ({ttft_s} + ({n_out} - 1) * {itl_ms} / 1000)
