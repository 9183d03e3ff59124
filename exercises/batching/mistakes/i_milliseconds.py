# kind: wrong
# about: converts the latency to milliseconds first
# expect in_flight: wrong /1000|milli/

def in_flight(arrival_rate, latency):
    latency_ms = latency * 1000
    return arrival_rate * latency_ms
