# kind: wrong
# about: rounds the number of requests to a whole number
# expect in_flight: wrong /decimals dropped/

def in_flight(arrival_rate, latency):
    return round(arrival_rate * latency)  # a whole number of requests
