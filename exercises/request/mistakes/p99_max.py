# kind: wrong
# about: nearest rank: the 10th value
# expect p99_ms: wrong /largest value|nearest/

p99_ms = max([{latencies}])
