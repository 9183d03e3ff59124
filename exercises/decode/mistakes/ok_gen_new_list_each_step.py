# kind: correct
# about: generate keeping the new tokens apart and passing prompt + new each step

def generate(next_token, prompt, n):
    out = []
    for _ in range(n):
        out.append(next_token([*prompt, *out]))
    return [*prompt, *out]
