# kind: wrong
# about: reads n as the final length of the sequence, not the number of new tokens
# expect generate: wrong /too few|len\(prompt\) ?\+ ?n|new tokens|total length|length|n new/

def generate(next_token, prompt, n):
    seq = list(prompt)
    while len(seq) < n:
        seq.append(next_token(seq))
    return seq
