# kind: wrong
# about: turns p into a fraction and then divides by 100 again
# expect percentile: wrong /divided by 100 twice/

def percentile(samples, p):
    q = p / 100  # as a fraction
    s = sorted(samples)
    h = (len(s) - 1) * q / 100
    i = int(h)
    j = min(i + 1, len(s) - 1)
    return s[i] + (h - i) * (s[j] - s[i])
