# kind: wrong
# about: does not round at all
# expect prefill_iterations: wrong /not rounded/

def prefill_iterations(prefill_tokens, chunk_tokens):
    return prefill_tokens / chunk_tokens
