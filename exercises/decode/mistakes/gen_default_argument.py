# kind: wrong
# about: collects the tokens in a mutable default argument, shared between calls
# expect generate: wrong /earlier call|shared between calls/

def generate(next_token, prompt, n, out=[]):
    out.extend(prompt)
    for i in range(n):
        out.append(next_token(list(out)))
    return out
