# kind: wrong
# about: adds one for the last chunk even when none is left over
# expect prefill_iterations: wrong /one too many/

def prefill_iterations(prefill_tokens, chunk_tokens):
    return prefill_tokens // chunk_tokens + 1  # the last, partial chunk
