# kind: wrong
# about: runs generate and returns True without checking anything
# expect call_order_is_sequential: wrong /always (returns? )?true|never (returns? )?false|without checking|does not check|ignores (the )?(recorded|lengths)|returns? true (whatever|for every|for any)/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(wrapper, prompt, n)
    # print(lengths)
    return True
