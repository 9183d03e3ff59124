# kind: wrong
# about: reads n as the final length of the sequence, not the number of new tokens
# expect generate: wrong /total length|final length|number of new tokens|n new tokens|not the (total|final) length/

def generate(next_token, prompt, n):
    seq = list(prompt)
    while len(seq) < n:
        seq.append(next_token(seq))
    return seq
