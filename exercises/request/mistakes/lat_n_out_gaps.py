# kind: wrong
# about: counts 60 gaps after the first token
# expect latency_s: wrong /gaps? (too many|after the first)|n_out gaps/

latency_s = 0.6 + 60 * 0.032  # 60 tokens, 32 ms each
