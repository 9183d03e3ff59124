# kind: wrong
# about: divides the latency by the arrival rate
# expect in_flight: wrong /latency \/ arrival_rate/

def in_flight(arrival_rate, latency):
    return latency / arrival_rate
