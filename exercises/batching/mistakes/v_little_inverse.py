# kind: wrong
# about: divides the time by the rate
# expect requests_in_flight: wrong /time divided by the rate/

requests_in_flight = {latency} / {rate}
