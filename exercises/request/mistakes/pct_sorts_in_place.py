# kind: wrong
# about: sorts the caller's list in place
# expect percentile: wrong /changed the caller|in place/

def percentile(samples, p):
    samples.sort()
    h = (len(samples) - 1) * p / 100
    i = int(h)
    if i + 1 >= len(samples):
        return float(samples[-1])
    return samples[i] + (h - i) * (samples[i + 1] - samples[i])
