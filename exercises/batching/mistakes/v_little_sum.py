# kind: wrong
# about: adds the rate and the time
# expect requests_in_flight: wrong /added/

requests_in_flight = {rate} + {latency}
