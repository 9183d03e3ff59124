# kind: correct
# about: Little's law with named terms

def in_flight(arrival_rate, latency):
    lam, w = arrival_rate, latency  # L = lambda x W
    return lam * w
