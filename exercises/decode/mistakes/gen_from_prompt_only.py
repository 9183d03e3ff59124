# kind: wrong
# about: computes every new token from the prompt alone (all tokens precomputed in parallel)
# expect generate: wrong /prompt alone|only the prompt|never grows|does not grow|(doesn't|does not|never) (include|see)s? the (new|generated) tokens|same sequence every/

def generate(next_token, prompt, n):
    new_tokens = [next_token(list(prompt)) for _ in range(n)]
    return list(prompt) + new_tokens
