# kind: wrong
# about: the mean latency cut to whole milliseconds with int()
# expect mean_ms: wrong /right value (rounded|cut)|whole number|decimals dropped|int\(\)|truncat/

xs = [{latencies}]
mean_ms = int(sum(xs) / len(xs))
