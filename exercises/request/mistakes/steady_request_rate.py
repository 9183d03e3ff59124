# kind: wrong
# about: gives the request's output rate instead
# expect steady_tokens_per_s: wrong /output rate|TTFT/

steady_tokens_per_s = 60 / (0.6 + 59 * 0.032)
