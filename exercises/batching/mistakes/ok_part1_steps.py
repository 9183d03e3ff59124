# kind: correct
# about: Part 1 step by step with named values

kv_per_token = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2  # bytes
per_sequence = {context} * kv_per_token
step_s = ({params_b}e9 + {batch} * per_sequence) / {tb_per_s}e12
step_ms = step_s * 1e3
fleet_rate = {batch} / step_s
import math
max_batch = math.floor((10e-3 * {tb_per_s}e12 - {params_b}e9) / per_sequence)
requests_in_flight = {rate} * {latency}
