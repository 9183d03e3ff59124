# kind: wrong
# about: turns each token into a float before appending it
# expect generate: wrong /\bint\b|integer|float/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(float(next_token(seq)))
    return seq
