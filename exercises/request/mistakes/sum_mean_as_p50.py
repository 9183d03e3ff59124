# kind: wrong
# about: uses the mean as the typical latency
# expect latency_summary: wrong /p50 is the mean/

def latency_summary(latencies):
    m = sum(latencies) / len(latencies)
    return (m, m, percentile(latencies, 99))
