# kind: wrong
# about: appends to the caller's prompt list (no copy)
# expect generate: wrong /modif|mutat|chang|caller's|in place|copy/

def generate(next_token, prompt, n):
    seq = prompt  # start from the prompt
    for i in range(n):
        seq.append(next_token(seq))
    return seq
