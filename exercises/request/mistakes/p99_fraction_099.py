# kind: wrong
# about: moves 0.99 of the way instead of 0.91
# expect p99_ms: wrong /0\.99 of the way/

xs = sorted([{latencies}])
p99_ms = xs[8] + 0.99 * (xs[9] - xs[8])
