# kind: wrong
# about: divides the sum by 9
# expect mean_ms: wrong /divided by 9/

mean_ms = sum([{latencies}]) / 9
