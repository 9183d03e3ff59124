# kind: wrong
# about: checks the lengths are sorted, n of them, from the prompt's length, not that each grows by one
# expect call_order_is_sequential: wrong /expected False/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []
    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)
    generate(wrapper, prompt, n)
    return lengths == sorted(lengths) and len(lengths) == n and (n == 0 or lengths[0] == len(prompt))
