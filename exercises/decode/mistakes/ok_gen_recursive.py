# kind: correct
# about: generate written recursively, building a new list at each level

def generate(next_token, prompt, n):
    if n == 0:
        return list(prompt)
    sequence = list(prompt)
    return generate(next_token, sequence + [next_token(sequence)], n - 1)
