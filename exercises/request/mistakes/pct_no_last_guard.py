# kind: wrong
# about: no guard for the last index: p = 100 raises IndexError
# expect percentile: wrong /does not exist/

def percentile(samples, p):
    s = sorted(samples)
    h = (len(s) - 1) * p / 100
    i = int(h)
    return s[i] + (h - i) * (s[i + 1] - s[i])
