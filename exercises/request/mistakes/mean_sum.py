# kind: wrong
# about: forgets to divide by 10
# expect mean_ms: wrong /that is the sum/

mean_ms = sum([{latencies}])
