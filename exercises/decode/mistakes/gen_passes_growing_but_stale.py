# kind: wrong
# about: passes a snapshot taken before the loop, so the model never sees the new tokens
# expect generate: wrong /whole sequence|sequence so far|growing|same (length|sequence)|prompt (alone|only)|fed back|feeds? back|sequential/

def generate(next_token, prompt, n):
    context = list(prompt)
    output = list(prompt)
    for _ in range(n):
        output.append(next_token(context))
    return output
