# kind: correct
# about: statistics.mean and statistics.median

import statistics

def latency_summary(latencies):
    return (statistics.mean(latencies), statistics.median(latencies), percentile(latencies, 99))
