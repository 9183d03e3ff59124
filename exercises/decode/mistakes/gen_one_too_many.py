# kind: wrong
# about: calls the model n + 1 times and cuts the extra token off
# expect generate: wrong /one call too many/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n + 1):
        seq.append(next_token(seq))
    return seq[:len(prompt) + n]
