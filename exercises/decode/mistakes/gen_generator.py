# kind: wrong
# about: writes generate as a Python generator (yield), as the name suggests
# expect generate: wrong /generator|yield|not a list/

def generate(next_token, prompt, n):
    seq = list(prompt)
    yield from seq
    for _ in range(n):
        tok = next_token(seq)
        seq.append(tok)
        yield tok
