# kind: wrong
# about: calls the model twice per token (once to print it while debugging, once to append)
# expect generate: wrong /twice|two calls per|more than once per|2 calls per|two times per|called twice/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for i in range(n):
        if next_token(seq) is None:
            break
        seq.append(next_token(seq))
    return seq
