# kind: wrong
# about: builds the list but forgets to return it
# expect generate: wrong /returned None|forg[oe]t (to )?return|no return|return statement/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
