# kind: correct
# about: generate copying with prompt[:] and growing with +=

def generate(next_token, prompt, n):
    seq = prompt[:]
    for _ in range(n):
        token = next_token(seq)
        seq += [token]
    return seq
