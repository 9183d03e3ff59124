# kind: wrong
# about: builds the list but forgets to return it
# expect generate: wrong /returned None|return(s|ed)? nothing|forg[oe]t.*return|no return|None/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
