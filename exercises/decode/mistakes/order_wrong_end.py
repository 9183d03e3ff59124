# kind: wrong
# about: expects one more call than there are tokens (range up to len(prompt) + n inclusive)
# expect call_order_is_sequential: wrong /off[- ]by[- ]one|one (call |length )?too many|n \+ 1|len\(prompt\) ?\+ ?n - 1|end|last/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n + 1))
