# kind: wrong
# about: returns a tuple (immutable, so "safer")
# expect generate: wrong /tuple|not a list/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
    return tuple(seq)
