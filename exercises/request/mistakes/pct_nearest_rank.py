# kind: wrong
# about: nearest-rank method
# expect percentile: wrong /nearest-rank|nearest/

import math

def percentile(samples, p):
    s = sorted(samples)
    rank = math.ceil(p / 100 * len(s))
    return float(s[max(rank, 1) - 1])
