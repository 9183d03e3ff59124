# kind: wrong
# about: multiplies all 60 tokens by the ITL and forgets the TTFT
# expect latency_s: wrong /TTFT is missing/

latency_s = 60 * 0.032
