# kind: correct
# about: math.ceil of the division

import math

def prefill_iterations(prefill_tokens, chunk_tokens):
    return math.ceil(prefill_tokens / chunk_tokens)
