# kind: correct
# about: generate written recursively: the first n - 1 tokens, then one more

def generate(next_token, prompt, n):
    if n == 0:
        return list(prompt)
    head = generate(next_token, prompt, n - 1)
    return head + [next_token(head)]
