# kind: wrong
# about: computes every new token from the prompt alone (all tokens precomputed in parallel)
# expect generate: wrong /prompt (alone|only)|same (length|sequence)|whole sequence|sequence so far|growing|sequential|feeds? back|fed back/

def generate(next_token, prompt, n):
    new_tokens = [next_token(list(prompt)) for _ in range(n)]
    return list(prompt) + new_tokens
