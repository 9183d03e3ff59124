# kind: wrong
# about: uses p as a fraction: the rank (n - 1) x p is never divided by 100
# expect percentile: wrong /not divided by 100/

def percentile(samples, p):
    s = sorted(samples)
    h = (len(s) - 1) * p
    i = int(h)
    if i >= len(s) - 1:
        return float(s[-1])
    return float(s[i] + (h - i) * (s[i + 1] - s[i]))
