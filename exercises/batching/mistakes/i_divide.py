# kind: wrong
# about: divides the arrival rate by the latency
# expect in_flight: wrong /arrival_rate \/ latency/

def in_flight(arrival_rate, latency):
    return arrival_rate / latency
