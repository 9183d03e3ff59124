# kind: wrong
# about: counts {n_out} gaps after the first token
# expect latency_s: wrong /gaps? (too many|after the first)|n_out gaps/

latency_s = {ttft_s} + {n_out} * {itl_ms} / 1000  # {n_out} tokens, {itl_ms} ms each
