# kind: wrong
# about: forgets the TTFT
# expect latency_s: wrong /TTFT is missing/

latency_s = ({n_out} - 1) * {itl_ms} / 1000
