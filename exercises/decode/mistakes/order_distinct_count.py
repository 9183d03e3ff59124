# kind: wrong
# about: counts distinct lengths seen, so skipped or wrong lengths pass if there are n of them
# expect call_order_is_sequential: wrong /distinct|\bsets?\b|which lengths|out of order|order matters/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    return len(set(lengths)) == n and len(lengths) == n
