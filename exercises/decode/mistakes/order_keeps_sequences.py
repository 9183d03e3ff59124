# kind: wrong
# about: the wrapper keeps each sequence it is handed and reads their lengths only after generate returns
# expect call_order_is_sequential: wrong /same list|grow|at the moment|when (it is|the wrapper is) called/

def generate(next_token, prompt, n):
    tokens = list(prompt)
    for _ in range(n):
        tokens.append(next_token(tokens))  # one list, growing
    return tokens


def call_order_is_sequential(next_token, prompt, n):
    calls = []

    def spy(sequence):
        calls.append(sequence)  # look at them afterwards
        return next_token(sequence)

    generate(spy, prompt, n)
    return [len(s) for s in calls] == list(range(len(prompt), len(prompt) + n))
