# kind: wrong
# about: its wrapper calls the model but returns 0 instead of the model's token
# expect call_order_is_sequential: wrong /return next_token\(sequence\)/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []
    def wrapper(seq):
        lengths.append(len(seq))
        next_token(seq)
        return 0
    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
