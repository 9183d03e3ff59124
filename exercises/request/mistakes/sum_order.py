# kind: wrong
# about: puts the median first
# expect latency_summary: wrong /another order/

def latency_summary(latencies):
    p50 = percentile(latencies, 50)
    p99 = percentile(latencies, 99)
    avg = sum(latencies) / len(latencies)
    return (p50, avg, p99)
