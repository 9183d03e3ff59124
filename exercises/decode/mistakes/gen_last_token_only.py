# kind: wrong
# about: feeds the model only the last token, not the whole sequence
# expect generate: wrong /last token|only the last/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq[-1:]))
    return seq
