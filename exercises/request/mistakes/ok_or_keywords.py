# kind: correct
# about: calls request_latency by keyword

def output_rate(n_out, ttft, itl):
    seconds = request_latency(n_out=n_out, itl=itl, ttft=ttft)
    return n_out / seconds
