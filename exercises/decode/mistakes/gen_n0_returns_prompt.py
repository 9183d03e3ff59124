# kind: wrong
# about: copies the prompt, except for n == 0 where it hands back the caller's own list
# expect generate: wrong /same (list|object)|caller's own list|alias|new list|fresh (list|copy)|is the prompt|the argument itself|returned the prompt itself/

def generate(next_token, prompt, n):
    if n == 0:
        return prompt  # nothing to do
    out = list(prompt)
    for _ in range(n):
        out.append(next_token(out))
    return out
