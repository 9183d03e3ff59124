# kind: wrong
# about: counts only the tokens after the first
# expect output_rate: wrong /n_out - 1 tokens/

def output_rate(n_out, ttft, itl):
    return (n_out - 1) / request_latency(ttft, itl, n_out)
