# kind: wrong
# about: uses the time in ms
# expect requests_in_flight: wrong /milliseconds/

requests_in_flight = {rate} * {latency} * 1000
