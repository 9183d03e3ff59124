# kind: wrong
# about: counts n_out gaps in latency_s, and then only n_out - 1 tokens over it: two slips, two questions
# expect latency_s: wrong /gaps? (too many|after the first)|n_out gaps/
# expect request_tokens_per_s: wrong /does not follow from your own .latency_s./

latency_s = {ttft_s} + {n_out} * {itl_ms} / 1000
request_tokens_per_s = ({n_out} - 1) / latency_s
