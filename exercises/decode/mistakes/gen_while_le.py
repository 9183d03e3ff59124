# kind: wrong
# about: while loop with <= makes one token too many
# expect generate: wrong /one (call|token) too many|off[- ]by[- ]one|one (extra|more) (call|token)/

def generate(next_token, prompt, n):
    result = list(prompt)
    count = 0
    while count <= n:
        result.append(next_token(result))
        count += 1
    return result
