# kind: wrong
# about: expects one more call than there are tokens (range up to len(prompt) + n inclusive)
# expect call_order_is_sequential: wrong /off[- ]by[- ]one|one (step|token|call) too (few|many)|one (step|token) (less|more|fewer|extra)|one (call|length) too many|n ?\+ ?1|ends? (at|with)|last length/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n + 1))
