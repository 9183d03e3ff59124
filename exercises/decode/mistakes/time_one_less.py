# kind: wrong
# about: counts n_tokens - 1 steps (thinks the first token is free, as with TTFT)
# expect decode_time: wrong /off[- ]by[- ]one|one (step|token|call) too (few|many)|one (step|token) (less|more|fewer|extra)|n_tokens ?- ?1/

def decode_time(n_tokens, param_bytes, bandwidth):
    if n_tokens == 0:
        return 0.0
    return (n_tokens - 1) * decode_step_seconds(param_bytes, bandwidth)
