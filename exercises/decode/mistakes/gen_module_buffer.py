# kind: wrong
# about: reuses one module-level list across calls, so an earlier result changes later
# expect generate: wrong /same (list|object)|reus|earlier (result|list|call)|previous (result|list|call)|new list|fresh|distinct|shared|changed (later|afterwards)/

_tokens = []

def generate(next_token, prompt, n):
    _tokens.clear()
    _tokens.extend(prompt)
    for _ in range(n):
        _tokens.append(next_token(_tokens))
    return _tokens
