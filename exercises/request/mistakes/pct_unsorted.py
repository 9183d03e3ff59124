# kind: wrong
# about: forgets to sort
# expect percentile: wrong /not sorted/

def percentile(samples, p):
    s = list(samples)
    h = (len(s) - 1) * p / 100
    i = int(h)
    if i == len(s) - 1:
        return float(s[i])
    return s[i] + (h - i) * (s[i + 1] - s[i])
