# kind: wrong
# about: divides the sum by 9
# expect mean_ms: wrong /one fewer than the count|n - 1/

mean_ms = sum([{latencies}]) / 9
