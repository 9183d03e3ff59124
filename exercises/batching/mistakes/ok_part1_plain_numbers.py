# kind: correct
# about: Part 1 as rounded numbers

step_ms = 3.64
fleet_rate = 4395
max_batch = 97
requests_in_flight = 63
