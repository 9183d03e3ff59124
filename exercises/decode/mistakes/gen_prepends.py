# kind: wrong
# about: puts each new token in front of the sequence instead of at the end
# expect generate: wrong /front|beginning|prepend|start of the (list|sequence)|revers|(does not|doesn't) start with the prompt/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.insert(0, next_token(seq))
    return seq
