# kind: wrong
# about: counts n_tokens + 1 steps (adds a prefill step)
# expect decode_time: wrong /off[- ]by[- ]one|one (step|token|call) too (few|many)|one (step|token) (less|more|fewer|extra)|n_tokens ?\+ ?1/

def decode_time(n_tokens, param_bytes, bandwidth):
    steps = n_tokens + 1  # prefill + decode steps
    return steps * decode_step_seconds(param_bytes, bandwidth)
