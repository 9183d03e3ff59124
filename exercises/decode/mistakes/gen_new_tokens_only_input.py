# kind: wrong
# about: calls next_token on the generated tokens only, leaving the prompt out of the input
# expect generate: wrong /without the prompt|only the (generated|new) tokens|prompt (is )?(missing|left out)|leaves? out the prompt/

def generate(next_token, prompt, n):
    new = []
    for _ in range(n):
        new.append(next_token(new))
    return list(prompt) + new
