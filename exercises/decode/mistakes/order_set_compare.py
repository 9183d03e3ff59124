# kind: wrong
# about: compares sets, so repeated lengths (two calls per token) and order go unnoticed
# expect call_order_is_sequential: wrong /\bsets?\b|duplicat|repeat|twice|more than once|out of order|order matters/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    return set(lengths) == set(range(len(prompt), len(prompt) + n))
