# kind: wrong
# about: range(1, n): one token too few
# expect generate: wrong /one (call|token) too few|off[- ]by[- ]one|one (call|token) (less|short|fewer)/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for i in range(1, n):
        seq.append(next_token(seq))
    return seq
