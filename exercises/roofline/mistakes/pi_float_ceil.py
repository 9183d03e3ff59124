# kind: wrong
# about: rounds up but returns a float
# expect prefill_iterations: wrong /but a float/

def prefill_iterations(prefill_tokens, chunk_tokens):
    import math
    return float(math.ceil(prefill_tokens / chunk_tokens))
