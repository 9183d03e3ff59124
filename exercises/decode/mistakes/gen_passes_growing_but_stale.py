# kind: wrong
# about: passes a snapshot taken before the loop, so the model never sees the new tokens
# expect generate: wrong /prompt alone|only the prompt|never grows|does not grow|(doesn't|does not|never) (include|see)s? the (new|generated) tokens|same sequence every/

def generate(next_token, prompt, n):
    context = list(prompt)
    output = list(prompt)
    for _ in range(n):
        output.append(next_token(context))
    return output
