# kind: correct
# about: builds a dict first, then the tuple

def latency_summary(latencies):
    stats = {'mean': sum(latencies) / len(latencies)}
    for p in (50, 99):
        stats[f'p{p}'] = percentile(latencies, p)
    return stats['mean'], stats['p50'], stats['p99']
