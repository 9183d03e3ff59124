# kind: wrong
# about: calls the model twice per token (once to print it while debugging, once to append)
# expect generate: wrong /twice|two calls|more than once|2 calls|called .* times|once per/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for i in range(n):
        if next_token(seq) is None:
            break
        seq.append(next_token(seq))
    return seq
