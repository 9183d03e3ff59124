# kind: wrong
# about: checks only the lengths of the first and the last call
# expect call_order_is_sequential: wrong /expected False/

def call_order_is_sequential(next_token, prompt, n):
    seen = []
    def spy(seq):
        seen.append(len(seq))
        return next_token(seq)
    generate(spy, prompt, n)
    if n == 0:
        return seen == []
    return seen[0] == len(prompt) and seen[-1] == len(prompt) + n - 1
