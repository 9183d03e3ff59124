# kind: wrong
# about: passes next_token itself to generate instead of the recording wrapper
# expect call_order_is_sequential: wrong /pass(es|ed)? next_token (itself|directly)|wrapper (was )?never called|nothing (was )?recorded|recorded nothing|instead of the wrapper|not the wrapper/

def call_order_is_sequential(next_token, prompt, n):
    lengths = []

    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)

    generate(next_token, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
