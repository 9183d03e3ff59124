# kind: wrong
# about: appends to the caller's prompt list (no copy)
# expect generate: wrong /modif|mutat|in place|changed the (caller's )?prompt/

def generate(next_token, prompt, n):
    seq = prompt  # start from the prompt
    for i in range(n):
        seq.append(next_token(seq))
    return seq
