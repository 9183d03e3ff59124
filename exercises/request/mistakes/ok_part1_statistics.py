# kind: correct
# about: Part 1 with the statistics module (quantiles' inclusive method is the lesson's linear interpolation) and the times in ms

import statistics

xs = [{latencies}]
mean_ms = statistics.mean(xs)
p50_ms = statistics.median(xs)
p99_ms = statistics.quantiles(xs, n=100, method="inclusive")[98]
latency_s = ({ttft_s} * 1000 + ({n_out} - 1) * {itl_ms}) / 1000
steady_tokens_per_s = 1 / ({itl_ms} / 1000)
request_tokens_per_s = {n_out} / latency_s
