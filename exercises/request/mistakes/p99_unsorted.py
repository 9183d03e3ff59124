# kind: wrong
# about: interpolates between the 9th and 10th values of the unsorted list
# expect p99_ms: wrong /not sorted/

xs = [{latencies}]
p99_ms = xs[8] + 0.91 * (xs[9] - xs[8])
