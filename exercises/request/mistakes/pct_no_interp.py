# kind: wrong
# about: takes s[int(h)] without interpolating
# expect percentile: wrong /no interpolation/

def percentile(samples, p):
    s = sorted(samples)
    return float(s[int((len(s) - 1) * p / 100)])
