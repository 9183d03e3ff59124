# kind: wrong
# about: the mean for the median
# expect p50_ms: wrong /that is the mean/

p50_ms = sum([{latencies}]) / 10
