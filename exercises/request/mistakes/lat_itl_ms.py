# kind: wrong
# about: adds {itl_ms} ms as {itl_ms} to {ttft_s} s
# expect latency_s: wrong /used in milliseconds/

latency_s = {ttft_s} + ({n_out} - 1) * {itl_ms}
