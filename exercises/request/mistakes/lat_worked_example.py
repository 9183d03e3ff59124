# kind: wrong
# about: copies the worked example's latency (0.5 s, 10 ms, 500 tokens) instead of working Part 1's request
# expect latency_s: wrong /worked example/

latency_s = 0.5 + (500 - 1) * 0.010
