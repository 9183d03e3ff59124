# kind: wrong
# about: passes 0.5 and 0.99 to percentile
# expect latency_summary: wrong /given fractions/

def latency_summary(latencies):
    m = sum(latencies) / len(latencies)
    return (m, percentile(latencies, 0.5), percentile(latencies, 0.99))
