# kind: wrong
# about: multiplies all {n_out} tokens by the ITL and forgets the TTFT
# expect latency_s: wrong /TTFT is missing/

latency_s = {n_out} * {itl_ms} / 1000
