# kind: wrong
# about: returns only the n new tokens, without the prompt
# expect generate: wrong /only the new tokens|prompt is missing|without the prompt|(left|leaves) out the prompt|missing the prompt|include the prompt|prompt (is )?not included/

def generate(next_token, prompt, n):
    seq = list(prompt)
    new_tokens = []
    for _ in range(n):
        tok = next_token(seq)
        seq.append(tok)
        new_tokens.append(tok)
    return new_tokens
