# kind: wrong
# about: takes the slowest request as p99
# expect latency_summary: wrong /largest latency/

def latency_summary(latencies):
    m = sum(latencies) / len(latencies)
    return (m, percentile(latencies, 50), max(latencies))
