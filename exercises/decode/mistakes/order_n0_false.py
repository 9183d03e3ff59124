# kind: wrong
# about: treats "no calls recorded" as a failure, so n = 0 gives False
# expect call_order_is_sequential: wrong /n ?= ?0|zero|no calls|empty list/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    if not lengths:
        return False
    return lengths == list(range(len(prompt), len(prompt) + n))
