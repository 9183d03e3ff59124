# kind: wrong
# about: adds the rate and the latency
# expect in_flight: wrong /added/

def in_flight(arrival_rate, latency):
    return arrival_rate + latency
