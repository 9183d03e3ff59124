# kind: wrong
# about: gives the latency in milliseconds
# expect latency_s: wrong /milliseconds instead of seconds|1,000/

latency_s = {ttft_s} * 1000 + ({n_out} - 1) * {itl_ms}  # ms
