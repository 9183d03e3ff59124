# kind: wrong
# about: returns a list
# expect latency_summary: wrong /returned a list/

def latency_summary(latencies):
    m = sum(latencies) / len(latencies)
    return [m, percentile(latencies, 50), percentile(latencies, 99)]
