# kind: wrong
# about: averages the two middle values of the list as given
# expect p50_ms: wrong /not sorted/

xs = [{latencies}]
p50_ms = (xs[4] + xs[5]) / 2
