# kind: wrong
# about: counts n_out gaps in latency_s, then divides n_out by that latency_s: one slip, costing latency_s only
# expect latency_s: wrong /gaps? (too many|after the first)|n_out gaps/

latency_s = {ttft_s} + {n_out} * {itl_ms} / 1000
request_tokens_per_s = {n_out} / latency_s
