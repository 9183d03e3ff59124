# kind: correct
# about: Part 1 with the step and the rate rounded to 3 significant figures, as the page allows

step = ({params_b}e9 + {batch} * {context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2) / {tb_per_s}e12
step_ms = float(f"{step * 1e3:.3g}")
fleet_rate = float(f"{{batch} / step:.3g}")
max_batch = int((0.010 * {tb_per_s}e12 - {params_b}e9) // ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))
requests_in_flight = {rate} * {latency}
