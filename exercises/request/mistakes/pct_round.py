# kind: wrong
# about: rounds the rank to the nearest sample
# expect percentile: wrong /no interpolation|rounded/

def percentile(samples, p):
    s = sorted(samples)
    return float(s[round((len(s) - 1) * p / 100)])
