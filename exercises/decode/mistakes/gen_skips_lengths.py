# kind: wrong
# about: asks the model for two tokens per call (appends the token twice), skipping every other length
# expect generate: wrong /skip|twice|two tokens (per|from one) call|same token twice|duplicat|repeat/

def generate(next_token, prompt, n):
    seq = list(prompt)
    while len(seq) < len(prompt) + n:
        tok = next_token(seq)
        seq.append(tok)
        if len(seq) < len(prompt) + n:
            seq.append(tok)  # the next one is probably the same, save a call
    return seq
