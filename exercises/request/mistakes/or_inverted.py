# kind: wrong
# about: returns seconds per token
# expect output_rate: wrong /upside down|seconds per token/

def output_rate(n_out, ttft, itl):
    return request_latency(ttft, itl, n_out) / n_out
