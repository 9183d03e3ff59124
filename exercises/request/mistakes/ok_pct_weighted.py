# kind: correct
# about: interpolates as a weighted average of the two neighbours

import math

def percentile(samples, p):
    ordered = sorted(samples)
    h = (len(ordered) - 1) * (p / 100)
    lo, hi = math.floor(h), math.ceil(h)
    w = h - lo
    return (1 - w) * ordered[lo] + w * ordered[hi]
