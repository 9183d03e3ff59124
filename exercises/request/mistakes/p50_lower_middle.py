# kind: wrong
# about: takes the 5th sorted value without interpolating
# expect p50_ms: wrong /middle values/

p50_ms = sorted([{latencies}])[4]
