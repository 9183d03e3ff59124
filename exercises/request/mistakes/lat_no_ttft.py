# kind: wrong
# about: forgets the TTFT
# expect latency_s: wrong /TTFT is missing/

latency_s = 59 * 0.032
