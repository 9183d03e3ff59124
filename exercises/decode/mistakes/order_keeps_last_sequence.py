# kind: wrong
# about: keeps a reference to the sequence of every call in a dict and checks the lengths at the end
# expect call_order_is_sequential: wrong /same list|grow|at the moment|when (it is|the wrapper is) called/

def generate(next_token, prompt, n):
    tokens = list(prompt)
    for _ in range(n):
        tokens.append(next_token(tokens))  # one list, growing
    return tokens


def call_order_is_sequential(next_token, prompt, n):
    by_call = {}

    def wrapper(seq):
        by_call[len(by_call)] = seq
        return next_token(seq)

    generate(wrapper, prompt, n)
    expected = [len(prompt) + i for i in range(n)]
    return [len(by_call[i]) for i in range(len(by_call))] == expected
