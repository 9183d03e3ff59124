# kind: wrong
# about: statistics.quantiles with its default (exclusive) method, the ends special-cased
# expect percentile: wrong /exclusive/

import statistics


def percentile(samples, p):
    if len(samples) < 2:
        return float(samples[0])
    if p in (0, 100):
        return float(min(samples) if p == 0 else max(samples))
    return float(statistics.quantiles(samples, n=100)[round(p) - 1])
