# kind: wrong
# about: the latency rounded to 2 significant figures, where the full value is asked for
# expect latency_s: wrong /right value (rounded|cut)|rounded to 2 significant figures|full value/

latency_s = float(f"{{ttft_s} + ({n_out} - 1) * {itl_ms} / 1000:.2g}")
