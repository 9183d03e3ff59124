# kind: wrong
# about: gives the median as the mean
# expect mean_ms: wrong /median/

xs = sorted([{latencies}])
mean_ms = (xs[4] + xs[5]) / 2
