# kind: wrong
# about: takes the 9th sorted value, no interpolation
# expect p99_ms: wrong /without interpolating/

p99_ms = sorted([{latencies}])[8]
