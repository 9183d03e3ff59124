# kind: wrong
# about: divides the rate by the time
# expect requests_in_flight: wrong /rate divided by the time/

requests_in_flight = {rate} / {latency}
