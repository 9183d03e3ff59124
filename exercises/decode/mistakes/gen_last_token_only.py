# kind: wrong
# about: feeds the model only the last token, not the whole sequence
# expect generate: wrong /last token|whole sequence|only (the )?(last|one)|length 1|full sequence|sequence so far/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq[-1:]))
    return seq
