# kind: correct
# about: generate with a while loop and a counter, building a new list each step

def generate(next_token, prompt, n):
    tokens = prompt[:]
    produced = 0
    while produced < n:
        tokens = tokens + [next_token(tokens)]
        produced += 1
    return tokens
