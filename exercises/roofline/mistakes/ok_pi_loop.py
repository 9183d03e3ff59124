# kind: correct
# about: a loop that takes chunks off the prompt

def prefill_iterations(prefill_tokens, chunk_tokens):
    left, iterations = prefill_tokens, 0
    while left > 0:
        left -= min(chunk_tokens, left)
        iterations += 1
    return iterations
