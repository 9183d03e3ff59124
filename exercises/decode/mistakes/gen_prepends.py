# kind: wrong
# about: puts each new token in front of the sequence instead of at the end
# expect generate: wrong /order|front|beginning|prepend|append|end of/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.insert(0, next_token(seq))
    return seq
