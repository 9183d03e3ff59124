# kind: correct
# about: Part 1 typed as arithmetic from the sorted list

xs = sorted([{latencies}])
mean_ms = sum(xs) / len(xs)
p50_ms = (xs[4] + xs[5]) / 2
p99_ms = xs[8] + (9 * 0.99 - 8) * (xs[9] - xs[8])
latency_s = {ttft_s} + ({n_out} - 1) * {itl_ms} / 1000
steady_tokens_per_s = 1000 / {itl_ms}
request_tokens_per_s = round({n_out} / latency_s, 2)
