# kind: correct
# about: generate with a while loop on the length

def generate(next_token, prompt, n):
    tokens = list(prompt)
    target = len(prompt) + n
    while len(tokens) < target:
        tokens.append(next_token(tokens))
    return tokens
