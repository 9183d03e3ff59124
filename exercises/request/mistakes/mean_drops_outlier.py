# kind: wrong
# about: drops the slow outlier before averaging
# expect mean_ms: wrong /without the slow|every sample/

xs = [{latencies}]
xs.remove(max(xs))
mean_ms = sum(xs) / len(xs)
