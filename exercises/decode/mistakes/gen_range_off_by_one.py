# kind: wrong
# about: range(1, n): one token too few
# expect generate: wrong /one (token |call )?too few|off[- ]by[- ]one|one (token|call) (less|short)|n - 1|len\(prompt\) ?\+ ?n|length/

def generate(next_token, prompt, n):
    seq = list(prompt)
    for i in range(1, n):
        seq.append(next_token(seq))
    return seq
