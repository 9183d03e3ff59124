# kind: wrong
# about: while loop with <= makes one token too many
# expect generate: wrong /one (token |call )?too many|off[- ]by[- ]one|one (token|call) (more|extra)|n \+ 1|len\(prompt\) ?\+ ?n|length/

def generate(next_token, prompt, n):
    result = list(prompt)
    count = 0
    while count <= n:
        result.append(next_token(result))
        count += 1
    return result
