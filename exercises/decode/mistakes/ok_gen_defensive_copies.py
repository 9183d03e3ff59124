# kind: correct
# about: generate hands the model a fresh copy of the sequence at every call

import copy

def generate(next_token, prompt, n):
    out = copy.copy(list(prompt))
    for step in range(n):
        out.append(next_token(list(out)))
    return out
