# kind: wrong
# about: rank n * p / 100 (clamped)
# expect percentile: wrong /off-by-one rank/

def percentile(samples, p):
    s = sorted(samples)
    h = len(s) * p / 100
    i = min(int(h), len(s) - 1)
    j = min(i + 1, len(s) - 1)
    return s[i] + (h - int(h)) * (s[j] - s[i])
