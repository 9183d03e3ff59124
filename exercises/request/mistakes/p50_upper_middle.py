# kind: wrong
# about: takes the 6th sorted value (rank n x p / 100 = 5)
# expect p50_ms: wrong /middle values/

p50_ms = sorted([{latencies}])[5]
