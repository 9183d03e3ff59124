# kind: wrong
# about: treats 0 tokens as one step (max(n, 1))
# expect decode_time: wrong /0 tokens|no tokens|n_tokens ?= ?0|nothing to generate|what one step|a single step/

def decode_time(n_tokens, param_bytes, bandwidth):
    return max(n_tokens, 1) * decode_step_seconds(param_bytes, bandwidth)
