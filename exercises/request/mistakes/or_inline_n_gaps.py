# kind: wrong
# about: writes the latency again inline, with n_out gaps
# expect output_rate: wrong /one gap too many/

def output_rate(n_out, ttft, itl):
    total_time = ttft + n_out * itl
    return n_out / total_time
