# kind: wrong
# about: calls next_token on the generated tokens only, leaving the prompt out of the input
# expect generate: wrong /whole sequence|without the prompt|prompt (is )?(missing|left out)|only the new|sequence so far|full sequence/

def generate(next_token, prompt, n):
    new = []
    for _ in range(n):
        new.append(next_token(new))
    return list(prompt) + new
