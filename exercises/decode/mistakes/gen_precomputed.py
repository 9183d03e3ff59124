# kind: wrong
# about: calls the model once and repeats its first token n times
# expect generate: wrong /own call/

def generate(next_token, prompt, n):
    first = next_token(list(prompt))
    return list(prompt) + [first] * n
