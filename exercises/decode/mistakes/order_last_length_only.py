# kind: wrong
# about: checks only the last recorded length
# expect call_order_is_sequential: wrong /only the last|last (length|call) only|checks? (just|only) the last|(ignores|never checks) the (earlier|other|rest)/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def record(sequence):
        lengths.append(len(sequence))
        return next_token(sequence)

    generate(record, prompt, n)
    if n == 0:
        return lengths == []
    return lengths[-1] == len(prompt) + n - 1
