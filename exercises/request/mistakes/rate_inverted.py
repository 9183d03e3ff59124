# kind: wrong
# about: divides T by n_out
# expect request_tokens_per_s: wrong /upside down|seconds per token/

latency = {ttft_s} + ({n_out} - 1) * {itl_ms} / 1000
request_tokens_per_s = latency / {n_out}
