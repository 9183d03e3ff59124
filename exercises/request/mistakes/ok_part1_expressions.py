# kind: correct
# about: Part 1 typed as arithmetic from the sorted list

xs = sorted([230, 210, 250, 1900, 240, 220, 260, 215, 245, 235])
mean_ms = sum(xs) / len(xs)
p50_ms = (xs[4] + xs[5]) / 2
p99_ms = xs[8] + (9 * 0.99 - 8) * (xs[9] - xs[8])
latency_s = 0.6 + (60 - 1) * 32 / 1000
steady_tokens_per_s = 1000 / 32
request_tokens_per_s = round(60 / latency_s, 2)
