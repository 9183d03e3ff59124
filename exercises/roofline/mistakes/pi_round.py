# kind: wrong
# about: rounds to the nearest whole number
# expect prefill_iterations: wrong /nearest/

def prefill_iterations(prefill_tokens, chunk_tokens):
    return round(prefill_tokens / chunk_tokens)
