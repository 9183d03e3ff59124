# kind: correct
# about: Part 1 step by step with named values

kv_per_token = 2 * 32 * 8 * 128 * 2  # bytes
per_sequence = 2000 * kv_per_token
step_s = (8e9 + 16 * per_sequence) / 3.35e12
step_ms = step_s * 1e3
fleet_rate = 16 / step_s
import math
max_batch = math.floor((10e-3 * 3.35e12 - 8e9) / per_sequence)
requests_in_flight = 15 * 4.2
