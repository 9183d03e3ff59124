# kind: wrong
# about: checks only that the first call saw the prompt's length
# expect call_order_is_sequential: wrong /only the first|first (length|call) only|checks? (just|only) the first|(ignores|never checks) the (later|other|rest)/

def call_order_is_sequential(next_token, prompt, n):
    seen = []

    def wrapper(seq):
        seen.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    if not seen:
        return n == 0
    return seen[0] == len(prompt)
