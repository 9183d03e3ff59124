# kind: correct
# about: writes the latency formula inline

def output_rate(n_out, ttft, itl):
    return n_out / (ttft + itl * (n_out - 1))
