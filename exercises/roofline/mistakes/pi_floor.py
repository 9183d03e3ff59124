# kind: wrong
# about: rounds the number of iterations down
# expect prefill_iterations: wrong /rounded down/

def prefill_iterations(prefill_tokens, chunk_tokens):
    return prefill_tokens // chunk_tokens
